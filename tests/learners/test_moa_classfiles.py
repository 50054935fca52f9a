"""``distval learners`` lists MOA's classifiers only: the class files' hierarchy, read
without a JVM, checked against Java's own reflection on every class of the jar (real JVM)."""

from __future__ import annotations

import zipfile

import pytest

from distval.learners.moa.classfiles import NOT_CLASSIFIERS, classifiers

pytestmark = pytest.mark.moa


def test_the_listed_classes_are_exactly_those_java_calls_classifiers():
    """For every class under moa/classifiers/: listed if and only if Java says it is a
    public, concrete moa.classifiers.Classifier that implements none of NOT_CLASSIFIERS."""
    from distval.learners.moa import jvm

    jvm.start_jvm()
    import jpype

    jar = jvm.moa_jar()
    loader = jpype.JClass("java.lang.ClassLoader").getSystemClassLoader()
    java_class = jpype.JClass("java.lang.Class")
    modifier = jpype.JClass("java.lang.reflect.Modifier")
    classifier = java_class.forName("moa.classifiers.Classifier", False, loader)
    excluded = [java_class.forName(n.replace("/", "."), False, loader) for n in NOT_CLASSIFIERS]
    listed = set(classifiers(jar))
    checked = 0
    with zipfile.ZipFile(jar) as z:
        names = [n[:-6].replace("/", ".") for n in z.namelist()
                 if n.startswith("moa/classifiers/") and n.endswith(".class")]
    for name in names:
        c = java_class.forName(name, False, loader)
        m = c.getModifiers()
        want = (modifier.isPublic(m) and not modifier.isAbstract(m) and not c.isInterface()
                and classifier.isAssignableFrom(c)
                and not any(x.isAssignableFrom(c) for x in excluded))
        assert (name in listed) == bool(want), name
        checked += 1
    assert checked > 500 and 50 < len(listed) < checked
    assert "moa.classifiers.trees.HoeffdingTree" in listed
    assert "moa.classifiers.core.driftdetection.ADWINChangeDetector" not in listed


def test_distval_learners_names_only_classifiers(capsys):
    """The families ``distval learners`` prints hold listed classifiers only (no split
    criteria, drift detectors or regressors)."""
    from distval.cli import main
    from distval.learners.moa import moa_families
    from distval.learners.moa.jvm import moa_jar

    listed = set(classifiers(moa_jar()))
    families = moa_families()
    for family, names in families.items():
        assert all(f"moa.classifiers.{family}.{n}" in listed for n in names), family
    assert "AMRulesRegressor" not in families.get("rules", [])
    assert "core" not in families
    assert main(["learners"]) == 0
    assert "HoeffdingTree" in capsys.readouterr().out
