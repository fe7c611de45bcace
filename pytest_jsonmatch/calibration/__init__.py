"""Measuring the LLM judge against a person's labels: the calibration stage.

Takes a labels file (field pairs a person judged ``same`` or ``different``) and the judge's
settings; gives the judge's agreement with the person (confusion matrix, raw agreement,
Cohen's kappa, Gwet's AC1, the true-pass, true-fail and false-accept rates, each with its
interval), its consistency under the bias checks, a panel's figures, and the calibration
file that records them with the judge's fingerprint. May import the engine, reporting,
cases/ and calls/ (the judge's recordings); never session/, plugin/ or pytest.
"""
