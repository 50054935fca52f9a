"""Checks of the deployment files: docker-compose.yml, cluster/*. No Docker engine, no network."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import ray
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = ROOT / "cluster"
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = CLUSTER / "Dockerfile"
LAUNCHER_CONFIGS = [CLUSTER / "cluster-local.yaml", CLUSTER / "cluster-aws.yaml"]
IMAGE_TAG = re.compile(r"^rayproject/ray:(?P<ray>\d+\.\d+\.\d+)-py(?P<major>3)(?P<minor>\d+)-cpu$")
WORKING_DIR_VAR = "${RAY_RUNTIME_ENV_CREATE_WORKING_DIR}"


# --- helpers ---------------------------------------------------------------------------


def load_compose() -> dict:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def services() -> dict:
    return load_compose()["services"]


def workers() -> dict:
    return {name: svc for name, svc in services().items() if name.startswith("worker")}


def command_of(service: dict) -> list[str]:
    command = service["command"]
    return shlex.split(command) if isinstance(command, str) else [str(c) for c in command]


def flag_value(command: list[str], flag: str) -> str:
    for i, arg in enumerate(command):
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
        if arg == flag:
            return command[i + 1]
    raise AssertionError(f"{flag} not in {command}")


def to_bytes(size: str | int) -> int:
    if isinstance(size, int):
        return size
    m = re.fullmatch(r"(\d+)\s*([kmg]?)b?", str(size).strip().lower())
    assert m, f"unparsable size {size!r}"
    return int(m[1]) * 1024 ** "_kmg".index(m[2] or "_")


def dockerfile_base_image() -> str:
    """The first FROM image of cluster/Dockerfile, with ARG defaults substituted."""
    args: dict[str, str] = {}
    for line in DOCKERFILE.read_text().splitlines():
        line = line.strip()
        if m := re.fullmatch(r"ARG\s+(\w+)=(\S+)", line):
            args[m[1]] = m[2]
        elif line.upper().startswith("FROM "):
            image = line.split()[1]
            return re.sub(r"\$\{?(\w+)\}?", lambda m: args[m[1]], image)
    raise AssertionError("no FROM line in cluster/Dockerfile")


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def load_submit():
    spec = importlib.util.spec_from_file_location("cluster_submit", CLUSTER / "submit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def submit():
    return load_submit()


# --- docker-compose.yml ----------------------------------------------------------------


def test_compose_has_head_two_workers_and_submit():
    svcs = services()
    assert "head" in svcs
    assert "submit" in svcs
    assert len(workers()) >= 2


def test_every_published_port_binds_to_loopback():
    published = []
    for name, svc in services().items():
        for port in svc.get("ports", []):
            if isinstance(port, dict):
                host_ip = port.get("host_ip")
                published.append(int(port["published"]))
            else:
                parts = str(port).split(":")
                host_ip = parts[0] if len(parts) == 3 else None
                published.append(int(parts[-2]) if len(parts) >= 2 else int(parts[0]))
            assert host_ip == "127.0.0.1", f"{name}: port {port!r} is not bound to 127.0.0.1"
    assert {8265, 10001} <= set(published)


def test_all_services_build_from_cluster_dockerfile():
    assert DOCKERFILE.is_file()
    images = set()
    for name, svc in services().items():
        build = svc.get("build")
        assert isinstance(build, dict), f"{name} has no build section"
        assert (ROOT / build.get("context", ".")).resolve() == ROOT, name
        assert (ROOT / build["dockerfile"]).resolve() == DOCKERFILE.resolve(), name
        images.add(svc.get("image"))
    assert len(images) == 1, f"services tag different images: {images}"


def test_dockerfile_base_is_official_ray_image_of_installed_version():
    m = IMAGE_TAG.match(dockerfile_base_image())
    assert m, f"unexpected base image {dockerfile_base_image()}"
    assert m["ray"] == ray.__version__
    ray_req = next(
        Requirement(d)
        for d in pyproject()["project"]["dependencies"]
        if Requirement(d).name == "ray"
    )
    assert Version(m["ray"]) in ray_req.specifier, f"{m['ray']} not allowed by {ray_req}"
    python = f"{m['major']}.{m['minor']}"
    assert Version(python) in SpecifierSet(pyproject()["project"]["requires-python"])


def test_dockerfile_installs_the_project_with_only_the_moa_extra():
    text = DOCKERFILE.read_text()
    assert re.search(r"^COPY\b.*\s\.\s+\.\s*$", text, re.M), "the repository is not copied"
    installs = re.findall(r"pip install\b[^\n]*", text)
    project = [i for i in installs if re.search(r"\s\"?\.(\[moa\])?\"?(\s|$)", i)]
    assert project, "pip does not install the project"
    assert all(".[" not in i or ".[moa]" in i for i in installs), "extras other than moa"
    assert "default-jdk-headless" in text, "no JDK for the MOA learners"


def test_dockerfile_installs_dependencies_before_copying_the_code():
    """An edit of the code must not reinstall the dependencies: they are installed from
    pyproject.toml alone, before ``COPY . .``, and the project then with ``--no-deps``."""
    text = DOCKERFILE.read_text()
    copy_all = re.search(r"^COPY\b.*\s\.\s+\.\s*$", text, re.M).start()
    copy_pyproject = re.search(r"^COPY\b.*\spyproject\.toml\s+\S+\s*$", text, re.M)
    assert copy_pyproject and copy_pyproject.start() < copy_all
    deps = re.search(r"pip install\b[^\n]*-r /tmp/deps\.txt", text)
    assert deps and copy_pyproject.start() < deps.start() < copy_all
    project = re.search(r"pip install\b[^\n]*--no-deps[^\n]*\.\[moa\]", text)
    assert project and project.start() > copy_all
    # the list the first layer installs is exactly the project's dependencies and moa extra
    meta = pyproject()["project"]
    script = re.search(r'python -c "(.*?)" > /tmp/deps.txt', text, re.S)[1]
    script = script.replace("\\\n", "").replace("\\n", "\n")
    assert "dependencies" in script and "'moa'" in script
    assert meta["optional-dependencies"]["moa"]


def test_results_directories_stay_out_of_the_build_context():
    ignore = (CLUSTER / "Dockerfile.dockerignore").read_text().split()
    for pattern in ("results", "distval-results", "**/distval-results", "benchmarks/results"):
        assert pattern in ignore, pattern


def test_cluster_extra_brings_the_jobs_api():
    extra = [Requirement(r) for r in pyproject()["project"]["optional-dependencies"]["cluster"]]
    assert [(r.name, r.extras) for r in extra] == [("ray", {"default"})]
    assert 'distval[cluster]' in (CLUSTER / "README.md").read_text()


def test_head_and_workers_start_ray():
    head = command_of(services()["head"])
    assert head[:3] == ["ray", "start", "--head"]
    assert flag_value(head, "--port") == "6379"
    assert flag_value(head, "--dashboard-host") == "0.0.0.0"
    assert "--block" in head
    assert "--num-cpus" in " ".join(head)
    for name, svc in workers().items():
        cmd = command_of(svc)
        assert cmd[:2] == ["ray", "start"], name
        assert flag_value(cmd, "--address") == "head:6379", name
        assert "--block" in cmd, name


def test_shm_is_larger_than_object_store():
    for name, svc in services().items():
        if name == "submit":
            continue
        store = int(flag_value(command_of(svc), "--object-store-memory"))
        assert to_bytes(svc["shm_size"]) > store, name


def test_head_and_workers_have_healthchecks():
    for name in ["head", *workers()]:
        test = services()[name].get("healthcheck", {}).get("test")
        assert test and test[0] in ("CMD", "CMD-SHELL"), f"{name} has no healthcheck"
    assert "8265" in " ".join(services()["head"]["healthcheck"]["test"])


def test_submit_runs_distval_once_after_the_cluster_is_up():
    svc = services()["submit"]
    cmd = command_of(svc)
    assert cmd[:3] == ["ray", "job", "submit"]
    assert flag_value(cmd, "--address") == "http://head:8265"
    entry = cmd[cmd.index("--") + 1 :]
    assert entry[:2] == ["distval", "run"]
    assert flag_value(entry, "--backend") == "ray"
    assert flag_value(entry, "--address") == "auto"
    assert str(svc["restart"]) == "no"
    assert svc["depends_on"]["head"]["condition"] == "service_healthy"
    for name in workers():
        assert name in svc["depends_on"], f"submit does not wait for {name}"


def test_job_output_lands_on_a_volume_of_the_head():
    # Job drivers run on the head node, so --output must be on a volume mounted there.
    entry = command_of(services()["submit"])
    output = flag_value(entry[entry.index("--") + 1 :], "--output")
    mounts = [str(v).split(":")[1] for v in services()["head"].get("volumes", [])]
    assert any(output == m or output.startswith(m.rstrip("/") + "/") for m in mounts), mounts
    assert "results" in (load_compose().get("volumes") or {})


def test_every_service_uses_token_authentication_with_one_required_token():
    """Every node, the job driver and the submitting client run Ray's token authentication
    with the same token, which compose requires from the environment (``${VAR:?...}``):
    a cluster with authentication off runs code for anyone who reaches a port."""
    for name, svc in services().items():
        env = svc.get("environment") or {}
        assert env.get("RAY_AUTH_MODE") == "token", name
        assert str(env.get("RAY_AUTH_TOKEN", "")).startswith("${RAY_AUTH_TOKEN:?"), name


def test_head_healthcheck_presents_the_token():
    # /api/version is behind the token; a healthcheck without it never turns healthy.
    test = " ".join(services()["head"]["healthcheck"]["test"])
    assert "/api/version" in test and "RAY_AUTH_TOKEN" in test and "Bearer" in test


def _compose_command() -> list[str] | None:
    docker = shutil.which("docker")
    if docker:
        probe = subprocess.run([docker, "compose", "version"], capture_output=True, timeout=30)
        if probe.returncode == 0:
            return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def test_compose_client_accepts_the_file():
    command = _compose_command()
    if command is None:
        pytest.skip("no `docker compose` plugin or `docker-compose` client installed")
    result = subprocess.run(
        [*command, "-f", str(COMPOSE_FILE), "config", "-q"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "RAY_AUTH_TOKEN": "0" * 64},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


# --- cluster launcher configs ----------------------------------------------------------


@pytest.mark.parametrize("path", LAUNCHER_CONFIGS, ids=lambda p: p.name)
def test_launcher_config_has_required_keys(path):
    config = yaml.safe_load(path.read_text())
    assert config["cluster_name"]
    assert config["provider"]["type"] in ("local", "aws")
    head = " ".join(config["head_start_ray_commands"])
    assert "ray start --head" in head
    worker = " ".join(config["worker_start_ray_commands"])
    assert "ray start --address=$RAY_HEAD_IP:6379" in worker
    assert any("pip install" in c and "distval" in c for c in config["setup_commands"])


def test_local_config_lists_head_and_workers():
    provider = yaml.safe_load((CLUSTER / "cluster-local.yaml").read_text())["provider"]
    assert provider["head_ip"]
    assert len(provider["worker_ips"]) >= 2


def test_launcher_configs_use_the_installed_ray():
    local = yaml.safe_load((CLUSTER / "cluster-local.yaml").read_text())
    assert any(f"ray[default]=={ray.__version__}" in c for c in local["setup_commands"])
    aws = yaml.safe_load((CLUSTER / "cluster-aws.yaml").read_text())
    assert aws["docker"]["image"] == dockerfile_base_image()


@pytest.mark.parametrize("path", LAUNCHER_CONFIGS, ids=lambda p: p.name)
def test_launcher_config_passes_rays_own_validation(path):
    try:
        from ray.autoscaler._private.util import prepare_config, validate_config
    except ImportError as exc:  # internal module; moves between Ray releases
        pytest.skip(f"Ray's config validation is not importable: {exc}")
    validate_config(prepare_config(yaml.safe_load(path.read_text())))


# --- cluster/submit.py -----------------------------------------------------------------


def test_parse_args_splits_at_double_dash(submit, monkeypatch):
    monkeypatch.delenv("RAY_API_SERVER_ADDRESS", raising=False)
    args = submit.parse_args(["--wait", "--", "--folds", "5", "--wait"])
    assert args.wait is True
    assert args.distval_args == ["--folds", "5", "--wait"]
    assert args.address == "http://127.0.0.1:8265"
    assert Path(args.working_dir) == ROOT


def test_parse_args_takes_address_from_environment(submit, monkeypatch):
    monkeypatch.setenv("RAY_API_SERVER_ADDRESS", "http://10.0.0.1:8265")
    assert submit.parse_args([]).address == "http://10.0.0.1:8265"
    assert submit.parse_args(["--address", "http://h:1"]).address == "http://h:1"


def test_build_entrypoint_prefixes_and_quotes(submit):
    entry = submit.build_entrypoint(["--learners", "ht", "nb", "--output", "/tmp/a b"])
    assert entry.startswith("distval run --backend ray --address auto ")
    assert shlex.split(entry)[-2:] == ["--output", "/tmp/a b"]
    assert submit.build_entrypoint([]) == "distval run --backend ray --address auto"


@pytest.mark.parametrize("bad", [["--address", "x"], ["--backend=inprocess"], ["--address=auto"]])
def test_build_entrypoint_rejects_flags_it_sets(submit, bad):
    with pytest.raises(ValueError, match="do not pass"):
        submit.build_entrypoint(bad)


def test_build_runtime_env_installs_the_uploaded_project(submit, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    env = submit.build_runtime_env(tmp_path)
    assert env["working_dir"] == str(tmp_path.resolve())
    assert ".git" in env["excludes"]
    (entry,) = env["pip"]
    # The variable, then a pip comment (whitespace before '#').
    assert re.fullmatch(re.escape(WORKING_DIR_VAR) + r"\s+#.*", entry), entry
    from ray.runtime_env import RuntimeEnv

    assert RuntimeEnv(**env)["pip"]["packages"] == [entry]


def test_runtime_env_changes_with_dependencies_only(submit, tmp_path):
    pyproject_file = tmp_path / "pyproject.toml"
    pyproject_file.write_text('[project]\nname = "x"\ndependencies = ["a"]\n')
    first = submit.build_runtime_env(tmp_path)["pip"]
    (tmp_path / "module.py").write_text("x = 1\n")
    assert submit.build_runtime_env(tmp_path)["pip"] == first
    pyproject_file.write_text('[project]\nname = "x"\ndependencies = ["b"]\n')
    assert submit.build_runtime_env(tmp_path)["pip"] != first


def test_build_runtime_env_without_install(submit, tmp_path):
    env = submit.build_runtime_env(tmp_path, install=False)
    assert "pip" not in env
    assert env["working_dir"] == str(tmp_path.resolve())


def test_build_runtime_env_rejects_bad_directories(submit, tmp_path):
    with pytest.raises(ValueError, match=r"pyproject\.toml"):
        submit.build_runtime_env(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        submit.build_runtime_env(tmp_path / "missing", install=False)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_main_reports_unreachable_dashboard_in_one_line(submit, capsys, monkeypatch):
    monkeypatch.delenv("RAY_API_SERVER_ADDRESS", raising=False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    address = f"http://127.0.0.1:{_closed_port()}"
    code = submit.main(["--address", address, "--timeout", "2", "--", "--folds", "3"])
    err = capsys.readouterr().err
    assert code != 0
    assert err.count("\n") == 1, err
    assert "cannot reach the Ray dashboard" in err
    assert address in err
    assert "Traceback" not in err


def test_main_rejects_reserved_flags_before_contacting_anything(submit, capsys):
    code = submit.main(["--address", "http://127.0.0.1:1", "--", "--backend", "inprocess"])
    assert code == 2
    assert "do not pass --backend" in capsys.readouterr().err


def test_submit_script_runs_as_a_program():
    result = subprocess.run(
        [sys.executable, str(CLUSTER / "submit.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0
    assert "--working-dir" in result.stdout


# --- cluster/submit.sh -----------------------------------------------------------------


def test_submit_sh_matches_submit_py(submit):
    script = CLUSTER / "submit.sh"
    text = script.read_text()
    assert os.stat(script).st_mode & stat.S_IXUSR, "submit.sh is not executable"
    if shutil.which("bash"):
        assert subprocess.run(["bash", "-n", str(script)], timeout=30).returncode == 0
    assert "ray job submit" in text
    assert submit.build_entrypoint([]) + ' "$@"' in text
    # one runtime-environment file for both
    assert '--runtime-env "$repo/cluster/runtime_env.json"' in text
    shared = json.loads((CLUSTER / "runtime_env.json").read_text())
    assert shared["pip"] == [WORKING_DIR_VAR]
    assert shared["excludes"] == submit.EXCLUDES and "distval-results" in shared["excludes"]
    env = submit.build_runtime_env(ROOT)
    assert env["excludes"] == shared["excludes"]
    assert env["pip"][0].startswith(shared["pip"][0])
    assert "--working-dir" in text
