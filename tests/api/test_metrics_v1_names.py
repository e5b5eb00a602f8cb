"""tf.metrics (the thresholds, top-k and mean metrics) against TF 1.15.s recorded values (tests/fixtures/metrics_v1):
each case set is one graph run in one session.run."""
import pytest
import recorded_cases

cases, VALUES = recorded_cases.load('metrics_v1', 'metrics_v1_cases')


@pytest.mark.parametrize("fn_name", recorded_cases.params(cases))
def test_against_tf115(fn_name):
    recorded_cases.check(cases, VALUES, fn_name)


