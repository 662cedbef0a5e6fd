"""Conversation metrics: one value per conversation, put on its last assistant turn.

    scope.py                where the value goes (the last turn; other turns ``not_last_turn``), the transcript
    judged.py               the one-call conversation judge, and the offline stand-in's ``unsupported`` status
    knowledge_retention.py  turns that contradict or ignore facts the user gave earlier
    relevance.py            conversation_relevance: turns that address their user turn in context
    completeness.py         conversation_completeness: the user's requests fulfilled by the end
    offline.py              the three without a judge: ``unsupported``, with the reason
    jury.py                 the three on a jury: each judge reads the transcript, turn-by-turn labels voted
"""
