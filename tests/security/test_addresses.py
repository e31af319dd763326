"""One person, one address: the canonical form every per-person rule compares."""

from pbem.validate import canonical_address, same_person


def test_case_and_plus_tags_name_one_person():
    assert canonical_address("Ann+2@Example.ORG") == "ann@example.org"
    assert canonical_address(" ann@example.org ") == "ann@example.org"
    assert canonical_address("ann+a+b@example.org") == "ann@example.org"
    assert same_person("ann+2@example.org", "ANN@example.org")


def test_other_people_stay_apart():
    assert not same_person("ann@example.org", "anna@example.org")
    assert not same_person("ann@example.org", "ann@example.com")
    assert not same_person("ann@example.org", "")
    assert canonical_address("not an address") == "not an address"
