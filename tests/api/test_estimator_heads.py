"""The estimator heads against TF 1.15.s recorded values (tests/fixtures/estimator_heads):
each case set is one graph run in one session.run."""
import pytest
import recorded_cases

cases, VALUES = recorded_cases.load('estimator_heads', 'heads_cases')


@pytest.mark.parametrize("fn_name", recorded_cases.params(cases))
def test_against_tf115(fn_name):
    recorded_cases.check(cases, VALUES, fn_name)


