"""The scheme registry is the one place a scheme's name is spelt, and every scheme speaks the whole protocol."""

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest

import simcore
from simcore import schemes
from simcore.schemes import CARD_PLAY, SCORED, SCHEMES, SchemeBase, default_schemes, make_scheme, scheme_module

PACKAGE = Path(simcore.__file__).parent
REGISTRY = PACKAGE / "schemes" / "__init__.py"


def _name_tests(tree, names):
    """(line, text) of every test of a scheme name: a comparison or membership test against a name (or a
    variant of one), a dict keyed by names, a lookup by a name."""
    def spelt(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
            return [text] if text in names or any(text.startswith(n + "(") for n in names) else []
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [t for elt in node.elts for t in spelt(elt)]
        return []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            hits = [t for operand in [node.left, *node.comparators] for t in spelt(operand)]
        elif isinstance(node, ast.Dict):
            hits = [t for key in node.keys if key is not None for t in spelt(key)]
        elif isinstance(node, ast.Subscript):
            hits = spelt(node.slice)
        else:
            continue
        yield from ((node.lineno, t) for t in hits)


def test_no_module_outside_the_registry_tests_a_scheme_name():
    names = set(SCHEMES)
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == REGISTRY:
            continue
        tree = ast.parse(path.read_text(), str(path))
        found += [f"{path.relative_to(PACKAGE.parent)}:{line}: {text!r}" for line, text in _name_tests(tree, names)]
    assert not found, "scheme names tested outside simcore/schemes/__init__.py:\n" + "\n".join(found)


def test_the_scan_finds_a_name_test():
    # the scan above must be able to fail: comparisons, membership, dict keys and lookups by name are caught
    tree = ast.parse('if scheme.name == "ppi" or label == "ngs(gain=2)": pass\nx = "ngs: message"\n'
                     'if name in ("imps-lost", "x"): pass\nEXTRAS = {"ngs": 1}\ny = EXTRAS["ppi"]')
    assert sorted(text for _, text in _name_tests(tree, set(SCHEMES))) == ["imps-lost", "ngs", "ngs(gain=2)", "ppi",
                                                                           "ppi"]


@pytest.mark.parametrize("name", list(SCHEMES))
def test_every_scheme_speaks_the_whole_protocol(name):
    module = scheme_module(name)
    assert dataclasses.is_dataclass(module.Params)
    assert issubclass(module.SCHEME, SchemeBase)
    try:
        scheme = make_scheme(name)
    except ValueError as exc:  # a peer without its optional extra: its class was checked above
        assert "optional extra" in str(exc)
        return
    assert isinstance(scheme, SchemeBase)
    assert scheme.name == name
    assert scheme.reads in (SCORED, CARD_PLAY)
    if scheme.reads == CARD_PLAY:
        assert scheme.out_columns
    for extra, labels in scheme.snapshot_extras.items():
        assert isinstance(extra, str) and len(labels) >= 2
    for overrides in scheme.default_variants:
        make_scheme(name, overrides)  # every default variant is valid
    if scheme.partnership_switch is not None:
        assert make_scheme(name, scheme.partnership_switch).has_partnership_grades
    for method in ("new_state", "grow", "apply", "grades", "extras", "partnership_grades", "revise"):
        assert callable(getattr(scheme, method))


def test_default_schemes_come_from_the_schemes():
    assert default_schemes() == [schemes.variant_label(n, o) for n in SCHEMES
                                 for o in scheme_module(n).SCHEME.default_variants]


def test_a_scheme_without_partnership_grades_says_so():
    ppi = make_scheme("ppi")
    assert not ppi.has_partnership_grades
    with pytest.raises(ValueError, match="ppi has no partnership-level grades"):
        ppi.partnership_grades(None, 0)


def test_a_module_outside_the_registry_has_no_name():
    class Stray(SchemeBase):
        pass
    with pytest.raises(ValueError, match="is not a registered scheme; add it to simcore.schemes.SCHEMES"):
        Stray().name


def test_snapshot_extras_are_labelled_in_the_dataset():
    from simcore.engine.dataset import extra_variable
    ngs = make_scheme("ngs")
    assert extra_variable(ngs.name, "status") == "ngs_status"
    assert np.all([len(v) for v in ngs.snapshot_extras.values()])
