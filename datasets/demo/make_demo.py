#!/usr/bin/env python3
"""Generate the genevals demo dataset (original text about the fictional Isle of Wrenholm).

Writes, next to this script:
  collection.jsonl  one line per chunk of the document collection
  demo.jsonl        30 questions x 3 systems ("dense", "sparse", "hybrid") = 90 rows
  demo_bad.jsonl    6 lines that exercise input errors (see docs/how-to/score-a-results-file.md)

Pure standard library. The only randomness is ``random.Random`` seeded with a fixed string per
(system, question), used for retrieval scores, so every run writes byte-identical files.

    python datasets/demo/make_demo.py
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASE_URL = "https://docs.example.org/"
SYSTEMS = ("dense", "sparse", "hybrid")
REFUSAL = "I don't know based on the provided documents."

# ------------------------------------------------------------------ collection
# slug -> chunks (1-3 sentences each). Chunk ids are "<slug>#<n>", n from 1.
DOCUMENTS: dict[str, list[str]] = {
    "ferry": [
        "The MV Kittiwake is the only passenger and vehicle ferry serving Wrenholm. It sails between Port Ansel "
        "on the island and Carrick Quay on the mainland, and the crossing takes about 55 minutes.",
        "From 1 May to 30 September the ferry makes six return sailings a day. For the rest of the year the "
        "winter timetable applies, with three return sailings a day and none on 25 December.",
        "An adult return ticket costs 18 crowns and a child return costs 9 crowns; island residents with a "
        "resident card pay half fare. Vehicles must be booked at least 24 hours before sailing.",
        "Sailings are cancelled when gusts above 50 knots are forecast for the crossing. Cancellations are "
        "posted on the harbour noticeboard and sent by text message to everyone on the ferry alert list.",
    ],
    "library": [
        "Wrenholm Library is on Mill Street in Port Ansel. It is open Tuesday to Saturday from 10:00 to 17:00, "
        "and stays open until 20:00 on Thursdays.",
        "Members can borrow up to eight items at a time for three weeks. The library stopped charging "
        "late-return fines in 2019, but lost or damaged items are charged at replacement cost.",
        "The mobile library van visits the northern hamlets of Skellin and Harrow Point every second "
        "Wednesday. It carries about 600 books and can collect reserved items from the main library.",
    ],
    "water-supply": [
        "Drinking water on Wrenholm comes from Loch Brannagh, a reservoir in the centre of the island. It is "
        "treated at the Tollard works by slow sand filtration followed by ultraviolet disinfection.",
        "Wrenholm's water is soft, with a typical hardness of 28 milligrams of calcium carbonate per litre, so "
        "water softeners are not needed.",
        "The council's water office declares a hosepipe ban when Loch Brannagh falls below 40 percent of its "
        "capacity. Boil-water notices are issued by the same office and published on the council website "
        "and on local radio.",
    ],
    "waste-and-recycling": [
        "General waste is collected every week, on Mondays in Port Ansel and on Tuesdays in the rest of the "
        "island.",
        "Recycling uses two bins collected on alternate weeks. The blue bin is for paper and card; the green "
        "bin takes glass bottles and jars, food tins and plastic bottles.",
        "The recycling centre on Gorse Lane is open on Wednesdays, Saturdays and Sundays from 9:00 to 16:00. "
        "It accepts garden waste, scrap metal, electrical items and household batteries.",
        "Households that want a brown bin for garden waste need a permit, which costs 35 crowns a year and "
        "runs from April to March.",
    ],
    "health-centre": [
        "Wrenholm Health Centre has two doctors and three nurses. Same-day appointments are booked by "
        "telephone between 8:00 and 10:00 on weekdays.",
        "Outside opening hours, patients should call the island duty line, which is answered by the on-call "
        "doctor. In an emergency the air ambulance lands at the helipad beside the school playing field and "
        "flies patients to Carrick General Hospital.",
        "The dispensary inside the health centre fills prescriptions from Monday to Saturday and is closed on "
        "Sundays.",
    ],
    "community-school": [
        "Wrenholm Community School teaches pupils aged 4 to 16 and has 142 pupils on its roll. It opened in "
        "1887 in the building that is now the community hall and moved to its present site on Cairn Road in "
        "1962.",
        "Students who continue their education from 16 to 18 attend Carrick Academy on the mainland. They "
        "board in the academy hostel during the week, and the council pays for their weekly ferry travel.",
    ],
    "skellin-head-lighthouse": [
        "Skellin Head Lighthouse was built in 1852 to guard the rocks off the island's northern tip. The light "
        "was automated in 1988, when the last keeper, Tomas Quill, retired.",
        "The light flashes white twice every 15 seconds and is visible for 22 nautical miles in clear weather.",
        "Guided tours of the tower run on Saturdays in June, July and August. Visitors climb 92 steps to the "
        "lantern room, and children under 8 are not allowed on the tour.",
    ],
    "brannagh-moss-reserve": [
        "Brannagh Moss Nature Reserve covers 340 hectares of blanket bog around the shores of Loch Brannagh. "
        "It is managed by the Wrenholm Wildlife Trust.",
        "The reserve is a breeding site for red-throated divers and is home to the Wrenholm vole, a subspecies "
        "found nowhere else in the world.",
        "Dogs must be kept on a lead in the reserve from 1 April to 31 July, during the ground-nesting season. "
        "A 2.4-kilometre boardwalk starts at the car park near the Tollard works.",
    ],
    "lantern-night": [
        "Lantern Night takes place on the last Saturday of October. It was first held in 1974 to mark the "
        "opening of the new harbour wall.",
        "Lanterns are made from willow and tissue paper at free workshops in the community hall during the two "
        "weeks before the festival. The procession walks from the harbour to the village green, where the "
        "lanterns are hung for the evening.",
        "Harbour Road and Mill Street are closed to traffic from 17:00 to 22:00 on the night of the procession.",
    ],
    "heritage-museum": [
        "The Wrenholm Heritage Museum occupies the old customs house on Harbour Road, which dates from the "
        "1790s. Admission is free, and donations are welcome.",
        "The museum's largest display tells the story of the schooner Halcyon, which was wrecked off Skellin "
        "Head in 1911; all eleven crew members were rescued by islanders in rowing boats.",
        "The museum is open daily from 11:00 to 16:00 between April and October. Group visits in winter can be "
        "arranged through the council office.",
    ],
    "island-council": [
        "Wrenholm Island Council has nine councillors, who are elected every four years. The most recent "
        "election was held in May 2022.",
        "The full council meets on the first Tuesday of each month in the council chamber in Port Ansel. "
        "Meetings start at 18:30 and are open to the public.",
        "Members of the public may speak at a meeting for up to three minutes if they register with the "
        "council office by noon on the day before.",
    ],
    "wind-energy": [
        "Three community-owned wind turbines on Cairn Ridge have supplied power to the island since 2014. "
        "Together they produce about 70 percent of Wrenholm's electricity over a year.",
        "Surplus electricity is exported to the mainland through a subsea cable that was laid in 2009. When the "
        "turbines are becalmed, the island draws power through the same cable.",
        "Income from the turbines pays for a community fund that gives grants of up to 5,000 crowns to local "
        "groups. Applications close on 31 March each year.",
    ],
}

# Short slugs used in the question table below -> document slug.
ALIAS = {
    "ferry": "ferry", "library": "library", "water": "water-supply", "waste": "waste-and-recycling",
    "clinic": "health-centre", "school": "community-school", "lighthouse": "skellin-head-lighthouse",
    "reserve": "brannagh-moss-reserve", "festival": "lantern-night", "museum": "heritage-museum",
    "council": "island-council", "energy": "wind-energy",
}


def chunk_id(short: str) -> str:
    slug, n = short.split("#")
    return f"{ALIAS[slug]}#{n}"


CHUNKS: dict[str, dict[str, str]] = {}  # chunk id -> {id, doc_id, text}, in collection order
for _slug, _texts in DOCUMENTS.items():
    for _n, _text in enumerate(_texts, start=1):
        CHUNKS[f"{_slug}#{_n}"] = {"id": f"{_slug}#{_n}", "doc_id": BASE_URL + _slug, "text": _text}

# ------------------------------------------------------------------ questions
# (qid, question, references, relevant {short chunk id: grade}, (faithful answer A, faithful answer B))
# A stays close to the source wording; B paraphrases it (so lexical and semantic metrics disagree).
QUESTIONS = [
    ("q01", "How long does the ferry crossing to the mainland take?",
     ["About 55 minutes.", "The crossing between Port Ansel and Carrick Quay takes about 55 minutes."],
     {"ferry#1": 2},
     ("The crossing between Port Ansel and Carrick Quay takes about 55 minutes.",
      "It's just under an hour: roughly 55 minutes on the MV Kittiwake.")),
    ("q02", "How many ferry sailings are there per day in summer?",
     ["Six return sailings a day from 1 May to 30 September."],
     {"ferry#2": 2},
     ("In summer (1 May to 30 September) the ferry makes six return sailings a day.",
      "Six round trips daily while the summer timetable runs.")),
    ("q03", "How much does an adult return ferry ticket cost?",
     ["18 crowns.", "An adult return costs 18 crowns, or half fare with a resident card."],
     {"ferry#3": 2},
     ("An adult return ticket costs 18 crowns.",
      "Adults pay 18 crowns for a return; residents holding a resident card pay half that.")),
    ("q04", "What happens to the boat when a storm is expected, and how do people find out?",
     ["Sailings are cancelled if gusts above 50 knots are forecast; cancellations are posted on the harbour "
      "noticeboard and sent by text to the ferry alert list."],
     {"ferry#4": 2},
     ("Sailings are cancelled when gusts above 50 knots are forecast, and cancellations are posted on the "
      "harbour noticeboard and sent by text message to the ferry alert list.",
      "If winds gusting over 50 knots are forecast, the ferry does not sail. Check the noticeboard at the "
      "harbour, or join the alert list to get a text.")),
    ("q05", "When is the library open late?",
     ["On Thursdays, until 20:00."],
     {"library#1": 2},
     ("The library stays open until 20:00 on Thursdays.",
      "Thursday evenings: it closes at 8 pm that day instead of 5 pm.")),
    ("q06", "Will I be fined if I bring a book back late?",
     ["No. Late-return fines were stopped in 2019, though lost or damaged items are charged at replacement "
      "cost."],
     {"library#2": 2},
     ("No. The library stopped charging late-return fines in 2019, although lost or damaged items are "
      "charged at replacement cost.",
      "You won't be fined for a late return, since fines were dropped in 2019. You would only pay if the "
      "item is lost or damaged.")),
    ("q07", "Which villages does the mobile library visit and how often?",
     ["Skellin and Harrow Point, every second Wednesday."],
     {"library#3": 2},
     ("The mobile library van visits Skellin and Harrow Point every second Wednesday.",
      "It serves the two northern hamlets, Skellin and Harrow Point, on alternate Wednesdays.")),
    ("q08", "Where does the island's tap water come from and how is it cleaned?",
     ["From the Loch Brannagh reservoir; it is treated at the Tollard works by slow sand filtration and "
      "ultraviolet disinfection."],
     {"water#1": 2, "reserve#1": 1},
     ("Tap water comes from the Loch Brannagh reservoir and is treated at the Tollard works by slow sand "
      "filtration followed by ultraviolet disinfection.",
      "It is drawn from Loch Brannagh in the middle of the island, then run through slow sand filters and "
      "disinfected with UV light at Tollard.")),
    ("q09", "Do I need a water softener on Wrenholm?",
     ["No. The water is soft, about 28 mg of calcium carbonate per litre, so softeners are not needed."],
     {"water#2": 2},
     ("No. The water is soft, with a typical hardness of 28 milligrams of calcium carbonate per litre, so "
      "softeners are not needed.",
      "You don't need one: the island's water is soft, at around 28 mg/L.")),
    ("q10", "At what reservoir level is a hosepipe ban declared?",
     ["When Loch Brannagh falls below 40 percent of its capacity.", "Below 40 percent."],
     {"water#3": 2, "water#1": 1},
     ("A hosepipe ban is declared when Loch Brannagh falls below 40 percent of its capacity.",
      "Once the reservoir drops under 40% full, the water office bans hosepipes.")),
    ("q11", "Which day is rubbish collected in Port Ansel?",
     ["Monday.", "General waste in Port Ansel is collected weekly on Mondays."],
     {"waste#1": 2},
     ("General waste is collected on Mondays in Port Ansel.",
      "Monday: bins in Port Ansel are emptied weekly on that day.")),
    ("q12", "Can I put glass jars in the blue bin?",
     ["No. Glass jars go in the green bin; the blue bin is for paper and card."],
     {"waste#2": 2},
     ("No. The blue bin is for paper and card; glass bottles and jars go in the green bin.",
      "Glass jars belong in the green bin, not the blue one, which only takes paper and cardboard.")),
    ("q13", "Where can I get rid of old batteries?",
     ["At the recycling centre on Gorse Lane, which accepts household batteries."],
     {"waste#3": 2},
     ("Household batteries are accepted at the recycling centre on Gorse Lane.",
      "Take them to the Gorse Lane recycling centre, open Wednesdays, Saturdays and Sundays from 9 to 4.")),
    ("q14", "How much is the garden waste permit?",
     ["35 crowns a year.", "The brown bin permit costs 35 crowns a year and runs from April to March."],
     {"waste#4": 2, "waste#3": 1},
     ("The garden waste permit costs 35 crowns a year and runs from April to March.",
      "A brown-bin permit is 35 crowns annually.")),
    ("q15", "How do I get a same-day appointment with a doctor?",
     ["Phone the health centre between 8:00 and 10:00 on a weekday."],
     {"clinic#1": 2},
     ("Same-day appointments are booked by telephone between 8:00 and 10:00 on weekdays.",
      "Ring the health centre on a weekday morning between 8 and 10 to get a same-day slot.")),
    ("q16", "Who should I call when the surgery is closed at night?",
     ["The island duty line, which is answered by the on-call doctor."],
     {"clinic#2": 2},
     ("Outside opening hours you should call the island duty line, which is answered by the on-call doctor.",
      "Phone the island duty line; the doctor on call picks up out of hours.")),
    ("q17", "What is the deadline for applying to the turbine community fund?",
     ["31 March each year.", "Applications close on 31 March; grants are up to 5,000 crowns."],
     {"energy#3": 2},
     ("Applications to the community fund close on 31 March each year, and grants are up to 5,000 crowns.",
      "The deadline is the end of March, and groups can receive as much as 5,000 crowns.")),
    ("q18", "How many pupils attend Wrenholm Community School?",
     ["142 pupils."],
     {"school#1": 2},
     ("Wrenholm Community School has 142 pupils on its roll.",
      "There are 142 children enrolled, aged between 4 and 16.")),
    ("q19", "Where do teenagers study after sixteen, and who pays for their travel?",
     ["At Carrick Academy on the mainland, boarding during the week; the council pays for their weekly ferry "
      "travel."],
     {"school#2": 2},
     ("Students aged 16 to 18 attend Carrick Academy on the mainland, boarding in the academy hostel during "
      "the week, and the council pays for their weekly ferry travel.",
      "They go to Carrick Academy across the water and live in its hostel on weekdays; the island council "
      "covers the cost of the weekly ferry.")),
    ("q20", "When was the Skellin Head light automated, and who was the last keeper?",
     ["In 1988; the last keeper was Tomas Quill."],
     {"lighthouse#1": 2},
     ("The light was automated in 1988, when the last keeper, Tomas Quill, retired.",
      "Automation came in 1988, and Tomas Quill was the final keeper.")),
    ("q21", "How far away can the lighthouse beam be seen?",
     ["22 nautical miles in clear weather.", "About 22 nautical miles."],
     {"lighthouse#2": 2},
     ("The light is visible for 22 nautical miles in clear weather.",
      "In good visibility it can be seen from 22 nautical miles away.")),
    ("q22", "Can my six-year-old join the lighthouse tour?",
     ["No, children under 8 are not allowed on the tour."],
     {"lighthouse#3": 2},
     ("No. Children under 8 are not allowed on the lighthouse tour.",
      "Unfortunately not; the tour has a minimum age of 8.")),
    ("q23", "What animal lives only on Wrenholm?",
     ["The Wrenholm vole, a subspecies found nowhere else."],
     {"reserve#2": 2},
     ("The Wrenholm vole, a subspecies found nowhere else in the world.",
      "The island's own vole, the Wrenholm vole, is unique to it.")),
    ("q24", "When must dogs be kept on a lead in Brannagh Moss?",
     ["From 1 April to 31 July."],
     {"reserve#3": 2},
     ("Dogs must be kept on a lead from 1 April to 31 July.",
      "During the ground-nesting season, April through July, dogs have to be leashed.")),
    ("q25", "When is Lantern Night held and when did it start?",
     ["On the last Saturday of October; it was first held in 1974."],
     {"festival#1": 2},
     ("Lantern Night is held on the last Saturday of October and was first held in 1974.",
      "It falls on October's final Saturday, a tradition going back to 1974.")),
    ("q26", "Which roads are closed for the lantern procession?",
     ["Harbour Road and Mill Street, from 17:00 to 22:00."],
     {"festival#3": 2, "festival#2": 1},
     ("Harbour Road and Mill Street are closed to traffic from 17:00 to 22:00 on the night of the procession.",
      "Expect Harbour Road and Mill Street to be shut between 5 pm and 10 pm.")),
    ("q27", "What happened to the crew of the Halcyon?",
     ["All eleven crew were rescued by islanders in rowing boats when the schooner was wrecked off Skellin "
      "Head in 1911.", "They were all rescued."],
     {"museum#2": 2},
     ("All eleven crew members were rescued by islanders in rowing boats when the Halcyon was wrecked off "
      "Skellin Head in 1911.",
      "The whole crew survived: islanders rowed out and saved all eleven of them.")),
    ("q28", "Does it cost anything to visit the heritage museum, and when is it open?",
     ["Admission is free (donations welcome); it is open daily from 11:00 to 16:00 between April and "
      "October."],
     {"museum#1": 2, "museum#3": 2},
     ("Admission is free, though donations are welcome, and the museum is open daily from 11:00 to 16:00 "
      "between April and October.",
      "It's free to get in. From April to October it opens every day, 11 am to 4 pm.")),
    ("q29", "How long do I get to speak at a council meeting, and how do I sign up?",
     ["Up to three minutes, if you register with the council office by noon on the day before."],
     {"council#3": 2, "council#2": 1},
     ("You may speak for up to three minutes if you register with the council office by noon on the day "
      "before the meeting.",
      "Three minutes at most; sign up with the council office before midday the day ahead.")),
    ("q30", "What share of the island's power comes from wind?",
     ["About 70 percent over a year.", "Around 70 percent of Wrenholm's electricity, from three wind "
      "turbines on Cairn Ridge."],
     {"energy#1": 2, "energy#2": 1},
     ("About 70 percent of Wrenholm's electricity over a year comes from the three wind turbines on Cairn "
      "Ridge.",
      "Roughly seven-tenths of the island's electricity is generated by wind.")),
]

# ------------------------------------------------------------------ retrieval
# Per (system, qid): (k, start) where k is the number of retrieved chunks and start the 1-based rank of the
# first relevant chunk (relevant chunks follow consecutively, grade 2 first); start None = nothing relevant
# retrieved. Anything not listed uses DEFAULT_K and start 1.
MISS = None
RETRIEVAL: dict[tuple[str, str], tuple[int, int | None]] = {
    # dense: weak on exact names and identifiers; sometimes has the right chunk at rank 2-4
    ("dense", "q03"): (4, 2), ("dense", "q04"): (4, 4), ("dense", "q07"): (4, MISS),
    ("dense", "q10"): (4, 3), ("dense", "q12"): (3, MISS), ("dense", "q14"): (4, 2),
    ("dense", "q16"): (4, 3), ("dense", "q18"): (4, 2), ("dense", "q20"): (4, MISS),
    ("dense", "q22"): (3, 2), ("dense", "q23"): (4, 4), ("dense", "q26"): (5, 4),
    ("dense", "q29"): (4, 3),
    # sparse: misses paraphrased questions, ranks some paraphrases lower
    ("sparse", "q04"): (4, MISS), ("sparse", "q06"): (4, 2), ("sparse", "q13"): (3, 2),
    ("sparse", "q15"): (4, 3), ("sparse", "q16"): (3, MISS), ("sparse", "q19"): (3, 2),
    ("sparse", "q23"): (4, MISS), ("sparse", "q22"): (4, 2), ("sparse", "q30"): (5, 3),
    # hybrid: usually best; misses only where both dense and sparse struggled
    ("hybrid", "q04"): (3, MISS), ("hybrid", "q10"): (5, 2), ("hybrid", "q15"): (5, 2),
    ("hybrid", "q16"): (3, MISS), ("hybrid", "q23"): (3, MISS), ("hybrid", "q27"): (5, 2),
}


def default_k(system: str, qnum: int) -> int:
    if system == "dense":
        return 4
    if system == "sparse":
        return 3 if qnum % 2 else 4
    return 5


STOPWORDS = set("""a an and are as at be by can do does for from how i in is it its my of on or the to what when
where which who will with i'm you your get there per""".split())


def _tokens(text: str) -> set[str]:
    return {t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOPWORDS}


def _overlap_order(question: str, candidates: list[str]) -> list[str]:
    q = _tokens(question)

    def tie(cid: str) -> str:  # stable pseudo-random tie-break, so ties do not all favour the first document
        return hashlib.sha256(f"{question}|{cid}".encode()).hexdigest()

    return sorted(candidates, key=lambda cid: (-len(q & _tokens(CHUNKS[cid]["text"])), tie(cid)))


def distractors(system: str, question: str, relevant: set[str]) -> list[str]:
    """Non-relevant chunks in the order a system of this kind would plausibly rank them."""
    pool = [cid for cid in CHUNKS if cid not in relevant]
    lexical = _overlap_order(question, pool)
    rel_docs = {cid.split("#")[0] for cid in relevant}
    # dense: same-document neighbours first (topically similar), then lexical overlap
    semantic = [c for c in lexical if c.split("#")[0] in rel_docs] + [c for c in lexical
                                                                      if c.split("#")[0] not in rel_docs]
    if system == "sparse":
        return lexical
    if system == "dense":
        return semantic
    merged: list[str] = []
    for pair in zip(semantic, lexical):
        for cid in pair:
            if cid not in merged:
                merged.append(cid)
    return merged


def scores(system: str, qid: str, k: int, hit: bool) -> list[float]:
    rng = random.Random(f"genevals-demo/{system}/{qid}")
    if system == "dense":  # cosine similarity
        top, values = rng.uniform(0.74, 0.89) if hit else rng.uniform(0.58, 0.70), []
        for _ in range(k):
            values.append(round(top, 4))
            top -= rng.uniform(0.012, 0.06)
    elif system == "sparse":  # BM25
        top, values = rng.uniform(9.0, 17.0) if hit else rng.uniform(4.5, 8.0), []
        for _ in range(k):
            values.append(round(top, 3))
            top *= rng.uniform(0.6, 0.9)
    else:  # reciprocal-rank fusion
        top, values = rng.uniform(0.0305, 0.0328) if hit else rng.uniform(0.026, 0.029), []
        for _ in range(k):
            values.append(round(top, 5))
            top -= rng.uniform(0.0004, 0.0018)
    assert all(a > b for a, b in zip(values, values[1:])), (system, qid, values)
    return values


def retrieve(system: str, qnum: int, qid: str, question: str, relevant: dict[str, int]) -> list[dict]:
    k, start = RETRIEVAL.get((system, qid), (default_k(system, qnum), 1))
    rel_order = sorted(relevant, key=lambda cid: (-relevant[cid], list(CHUNKS).index(cid)))
    fill = iter(distractors(system, question, set(relevant)))
    ids: list[str] = []
    if start is None:
        ids = [next(fill) for _ in range(k)]
    else:
        k = max(k, start + len(rel_order) - 1)
        for rank in range(1, k + 1):
            if start <= rank < start + len(rel_order):
                ids.append(rel_order[rank - start])
            else:
                ids.append(next(fill))
    return [dict(CHUNKS[cid], score=s) for cid, s in zip(ids, scores(system, qid, k, start is not None))]


# ------------------------------------------------------------------ planted answer errors
# (system, qid) -> (demo_label, answer). Every other row is "faithful" and uses a faithful variant.
SPECIAL: dict[tuple[str, str], tuple[str, str]] = {
    # ---- dense
    ("dense", "q12"): ("refusal", REFUSAL),
    ("dense", "q07"): ("unsupported",  # nothing relevant retrieved; answer happens to be right
                       "The mobile library goes out to Skellin and Harrow Point every second Wednesday."),
    ("dense", "q20"): ("unsupported",  # nothing relevant retrieved; answer is also wrong (1990)
                       "Skellin Head Lighthouse was automated in 1990, and its last keeper was Tomas Quill."),
    ("dense", "q09"): ("unsupported",
                       "No softener is needed because the Tollard works removes the calcium from the water "
                       "before it is piped to homes."),
    ("dense", "q02"): ("contradiction", "In summer the ferry makes four return sailings a day."),
    ("dense", "q18"): ("contradiction", "Wrenholm Community School has 124 pupils on its roll."),
    ("dense", "q25"): ("contradiction",
                       "Lantern Night is held on the last Saturday of October and was first held in 1947."),
    ("dense", "q28"): ("contradiction",
                       "Admission costs 5 crowns, and the museum is open daily from 11:00 to 16:00 between "
                       "April and October."),
    ("dense", "q15"): ("mixed",
                       "Call the health centre between 8:00 and 10:00 on a weekday for a same-day appointment. "
                       "You can also book same-day slots online through the patient portal."),
    ("dense", "q27"): ("mixed",
                       "All eleven crew were rescued by islanders in rowing boats. The Halcyon had been "
                       "carrying slate to Carrick, and her bell now hangs in the museum entrance."),
    # ---- sparse
    ("sparse", "q23"): ("refusal", REFUSAL),
    ("sparse", "q04"): ("unsupported",
                        "The ferry company cancels sailings in stormy weather and announces changes on its "
                        "website and social media."),
    ("sparse", "q16"): ("unsupported",
                        "When the surgery is closed, call the mainland out-of-hours service at Carrick General "
                        "Hospital."),
    ("sparse", "q21"): ("unsupported",
                        "Its LED lamp, fitted in 2015, can be seen from 22 nautical miles away."),
    ("sparse", "q03"): ("contradiction", "An adult return ticket costs 16 crowns."),
    ("sparse", "q10"): ("contradiction",
                        "A hosepipe ban comes into force when Loch Brannagh drops below 50 percent of its "
                        "capacity."),
    ("sparse", "q14"): ("contradiction", "The permit for a brown garden-waste bin costs 45 crowns a year."),
    ("sparse", "q24"): ("contradiction", "Dogs have to be on a lead from 1 March to 31 July."),
    ("sparse", "q08"): ("mixed",
                        "The water comes from Loch Brannagh and is cleaned at the Tollard works using slow sand "
                        "filtration and UV disinfection. A small dose of chlorine is then added to keep it "
                        "safe in the pipes."),
    ("sparse", "q29"): ("mixed",
                        "Members of the public can speak for up to three minutes. Register with the council "
                        "office by noon the day before. You can also send a written question by email "
                        "instead, and it will be read out by the chair."),
    # ---- hybrid
    ("hybrid", "q16"): ("refusal", REFUSAL),
    ("hybrid", "q04"): ("unsupported",
                        "Sailings are called off when a storm is forecast, and the harbour master phones every "
                        "passenger who has booked."),
    ("hybrid", "q23"): ("unsupported",  # nothing relevant retrieved; answer happens to be right
                        "The Wrenholm vole is found only on the island."),
    ("hybrid", "q30"): ("unsupported",
                        "About 70 percent today, rising to 90 percent once a fourth turbine is added in 2026."),
    ("hybrid", "q06"): ("contradiction",
                        "No fines are charged for late returns; the library abolished them in 2021."),
    ("hybrid", "q11"): ("contradiction", "Rubbish in Port Ansel is collected on Tuesdays."),
    ("hybrid", "q17"): ("contradiction", "Applications to the community fund close on 31 May each year."),
    ("hybrid", "q22"): ("contradiction", "Yes, children aged 6 and over are welcome on the tour."),
    ("hybrid", "q19"): ("mixed",
                        "Students aged 16 to 18 go to Carrick Academy on the mainland and board in its hostel "
                        "during the week. The council pays for their weekly ferry, and it also gives each "
                        "student a book allowance of 200 crowns a year."),
    ("hybrid", "q26"): ("mixed",
                        "Harbour Road and Mill Street are closed to traffic from 17:00 to 22:00. Free parking "
                        "for visitors is provided at the school on Cairn Road."),
}


# ------------------------------------------------------------------ build
def build_rows() -> list[dict]:
    rows = []
    for sys_index, system in enumerate(SYSTEMS):
        for qid, question, references, relevant_short, faithful in QUESTIONS:
            qnum = int(qid[1:])
            relevant = {chunk_id(c): g for c, g in relevant_short.items()}
            label, answer = SPECIAL.get((system, qid), ("faithful", faithful[(qnum + sys_index) % 2]))
            rows.append({
                "id": qid,
                "system": system,
                "question": question,
                "answer": answer,
                "contexts": retrieve(system, qnum, qid, question, relevant),
                "references": list(references),
                "relevant": relevant,
                # the planted label, for people: in the row's metadata, which genevals never reads
                "metadata": {"demo_label": label},
            })
    return rows


def bad_lines(good: dict) -> list[bytes]:
    def dump(obj: dict) -> bytes:
        return json.dumps(obj, ensure_ascii=False).encode("utf-8")

    small = {k: good[k] for k in ("id", "system", "question", "answer", "references")}
    small["contexts"] = [good["contexts"][0]["text"]]
    missing_answer = {k: v for k, v in small.items() if k != "answer"} | {"id": "q03"}
    wrong_type = dict(small, id="q04", contexts=3)
    return [
        dump(small),                                                           # 1: good row
        b'{"id": "q02", "system": "dense", "answer": "Six sailings a day.", ',  # 2: malformed JSON
        dump(missing_answer),                                                  # 3: missing answer
        dump(wrong_type),                                                      # 4: contexts is a number
        b'{"id": "q05", "system": "dense", "answer": "Caf\xff\xfe au lait."}',  # 5: invalid UTF-8
        dump(dict(small, answer="A second row with the same id.")),           # 6: duplicate (dense, q01)
    ]


def validate(rows: list[dict]) -> None:
    texts = {c["text"] for c in CHUNKS.values()}
    assert len(rows) == 90, len(rows)
    keys = [(r["system"], r["id"]) for r in rows]
    assert len(set(keys)) == len(keys), "duplicate (system, id)"
    for r in rows:
        assert 3 <= len(r["contexts"]) <= 5, r["id"]
        assert len(set(c["id"] for c in r["contexts"])) == len(r["contexts"]), (r["system"], r["id"])
        for c in r["contexts"]:
            assert c["text"] in texts and CHUNKS[c["id"]]["text"] == c["text"], (r["system"], r["id"], c["id"])
            assert c["doc_id"] == CHUNKS[c["id"]]["doc_id"]
        s = [c["score"] for c in r["contexts"]]
        assert all(a > b for a, b in zip(s, s[1:])), (r["system"], r["id"])
        assert 1 <= len(r["relevant"]) <= 3 and all(cid in CHUNKS for cid in r["relevant"]), r["id"]
        assert 1 <= len(r["references"]) <= 3, r["id"]
        hit = any(c["id"] in r["relevant"] for c in r["contexts"])
        if r["metadata"]["demo_label"] in ("faithful", "contradiction", "mixed"):
            # these labels are judged against a context that holds the answer
            assert all(cid in {c["id"] for c in r["contexts"]} for cid, g in r["relevant"].items() if g == 2), \
                (r["system"], r["id"])
        if not hit:
            assert r["metadata"]["demo_label"] in ("unsupported", "refusal"), (r["system"], r["id"])
        n_sent = len(re.findall(r"[.!?](\s|$)", r["answer"]))
        assert 1 <= n_sent <= 4, (r["system"], r["id"], n_sent)
    for system in SYSTEMS:
        labels = [r["metadata"]["demo_label"] for r in rows if r["system"] == system]
        assert labels.count("contradiction") == 4 and labels.count("unsupported") == 3
        assert labels.count("refusal") == 1 and labels.count("mixed") >= 1
        misses = sum(1 for r in rows if r["system"] == system
                     and not any(c["id"] in r["relevant"] for c in r["contexts"]))
        assert misses == 3, (system, misses)


def main() -> None:
    rows = build_rows()
    validate(rows)
    with open(HERE / "demo.jsonl", "w", encoding="utf-8", newline="\n") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    with open(HERE / "collection.jsonl", "w", encoding="utf-8", newline="\n") as out:
        for chunk in CHUNKS.values():
            out.write(json.dumps(chunk, ensure_ascii=False) + "\n")
    with open(HERE / "demo_bad.jsonl", "wb") as out:
        out.write(b"\n".join(bad_lines(rows[0])) + b"\n")

    # Re-read what was written, independently of the generator's in-memory rows.
    texts = {json.loads(line)["text"] for line in open(HERE / "collection.jsonl", encoding="utf-8")}
    ids = {json.loads(line)["id"] for line in open(HERE / "collection.jsonl", encoding="utf-8")}
    loaded = [json.loads(line) for line in open(HERE / "demo.jsonl", encoding="utf-8")]
    assert len(loaded) == 90
    assert len({(r["system"], r["id"]) for r in loaded}) == 90
    assert all(c["text"] in texts for r in loaded for c in r["contexts"])
    assert all(cid in ids for r in loaded for cid in r["relevant"])
    assert all(len(r["references"]) >= 1 for r in loaded)
    assert len(open(HERE / "demo_bad.jsonl", "rb").read().splitlines()) == 6

    print(f"wrote {len(loaded)} rows, {len(CHUNKS)} chunks in {len(DOCUMENTS)} documents")
    for system in SYSTEMS:
        counts: dict[str, int] = {}
        for r in loaded:
            if r["system"] == system:
                counts[r["metadata"]["demo_label"]] = counts.get(r["metadata"]["demo_label"], 0) + 1
        print(f"  {system}: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
