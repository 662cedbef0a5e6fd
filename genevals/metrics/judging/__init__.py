"""What the LLM-judge metrics share: the JudgeMetric base (one judge runtime, concurrent scoring), the prompts
they send (prompts/*.md, hashed into their signatures) and the reading of the replies. The judge itself
(genevals.judge) only carries messages; it knows none of this."""
