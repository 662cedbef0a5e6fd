"""Citation quality (ALCE): does each cited context support the sentence that cites it? An LLM judge
(:mod:`.judged`) and an offline checker (:mod:`.local`), sharing the formulas (:mod:`.formulas`)."""
