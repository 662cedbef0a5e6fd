"""Spilled summary columns give exactly the summary of in-memory values."""
import random

import numpy as np

from genevals.stats import summarise
from genevals.columns import SpillingColumns
from genevals.output.results import SummaryAccumulator
from genevals.types import MetricResult, Sample, SampleResult


def test_columns_round_trip_across_spills_in_order():
    cols = SpillingColumns(buffer_values=3)
    rnd = random.Random(0)
    expected = {"a": [], "b": []}
    for _ in range(20):
        key = rnd.choice("ab")
        value = rnd.random()
        cols.append(key, value)
        expected[key].append(value)
    cols.ensure("empty")
    assert cols.spilled_bytes > 0
    for key in "ab":
        assert cols.column(key).tolist() == expected[key]
        assert cols.length(key) == len(expected[key])
    assert cols.column("empty").size == 0
    cols.close()


def _result(system, i, value):
    metric = (MetricResult("m", value) if value is not None
              else MetricResult.unscored("m", "no_reference", "sample has no reference answer"))
    return SampleResult(sample=Sample(id=str(i), system=system, question="q", answer="a"), metrics={"m": metric})


def test_spilled_accumulator_summary_equals_plain_summarise():
    rnd = random.Random(1)
    values = [None if rnd.random() < 0.1 else rnd.random() for _ in range(1000)]
    small, large = SummaryAccumulator(buffer_values=7), SummaryAccumulator(buffer_values=10_000)
    for i, value in enumerate(values):
        small.add(_result("s", i, value))
        large.add(_result("s", i, value))
    assert small.values.spilled_bytes > 0 and large.values.spilled_bytes == 0
    statuses = ["ok" if v is not None else "no_reference" for v in values]
    expected = summarise(values, statuses).to_dict()
    assert small.summary()["s"]["m"] == expected == large.summary()["s"]["m"]
    assert expected["scored"] == sum(v is not None for v in values)
    assert np.isclose(expected["mean"], np.mean([v for v in values if v is not None]))


def test_extend_equals_appends_across_spills():
    import numpy as np

    from genevals.columns import SpillingColumns

    one, many = SpillingColumns(buffer_values=4), SpillingColumns(buffer_values=4)
    values = [float(i) for i in range(23)]
    for v in values:
        one.append("k", v)
    for part in (values[:3], values[3:4], values[4:17], [], values[17:]):
        many.extend("k", part)
    assert one.length("k") == many.length("k") == 23
    assert np.array_equal(one.column("k"), many.column("k")) and many.spilled_bytes == one.spilled_bytes
