"""Issue 37's ops of TF 1.15 (sqrtm/logm, extract_volume_patches, quantization, fractional pooling,
extract_glimpse, unicode_script, sparse cross) against TF 1.15's recorded values (tests/fixtures/ops_b):
each case set is one graph run in one session.run."""
import pytest
import recorded_cases

cases, VALUES = recorded_cases.load('ops_b', 'ops_b_cases')


@pytest.mark.parametrize("fn_name", recorded_cases.params(cases))
def test_against_tf115(fn_name):
    # the quantized ops' integers and floats are TF's bit for bit; the matrix functions are iterations
    recorded_cases.check(cases, VALUES, fn_name, tol=0 if fn_name.startswith("quantiz") else 1e-4)
