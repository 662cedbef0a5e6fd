"""A written batch is freed at once, even while the cyclic collector is paused (issue 34, point 18): a batch and
its results refer to each other, and cheap-metric runs pause the collector, so before the recorder released them
every batch of a run, samples and all, lived until the run ended (two 10^6-line TREC runs: about 1 GB)."""
import gc
import weakref

from genevals.engine.recorder import RunRecorder
from genevals.gcpause import collector_paused
from genevals.scored import ScoredBatch
from genevals.types import Context, Sample


def _batch() -> ScoredBatch:
    samples = [Sample(id=f"q{i}", answer="", contexts=tuple(Context("", r, f"d{r}") for r in range(1, 50)))
               for i in range(20)]
    return ScoredBatch(samples, [])


def _written(keep_samples: bool) -> weakref.ref:
    recorder = RunRecorder([], None, errors=[], seed=0, keep_samples=keep_samples, meta={})
    batch = _batch()
    ref = weakref.ref(batch)
    recorder.write(batch)
    del batch
    _written.recorder = recorder  # the recorder outlives the batch, as in a run
    return ref


def test_a_written_batch_is_freed_with_the_collector_paused():
    with collector_paused():
        assert not gc.isenabled()
        assert _written(keep_samples=False)() is None


def test_a_batch_whose_samples_are_kept_stays_readable():
    with collector_paused():
        ref = _written(keep_samples=True)
        kept = _written.recorder.results.samples
        assert len(kept) == 20 and kept[3].sample.id == "q3" and kept[3].metrics == {}
        assert kept[3].to_dict()["id"] == "q3"
    del ref
