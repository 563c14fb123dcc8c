"""The composite rerank: a weighted sum of relevance and memory signals, plus relation support.

``final = w_sim × similarity + w_imp × importance + w_rec × recency + w_pin × pinned + relations
- brevity - subject - kind``,
then optionally multiplied by an age decay (halving every ``MEMORY_DECAY_HALF_LIFE_DAYS``), and for an
inferred insight by ``MEMORY_INSIGHT_WEIGHT`` (insights surface with low weight). In the
breakdown ``similarity`` is the relevance: the cosine plus the keyword evidence in cosine units (see
:mod:`memlane.retrieval.hybrid`), and ``keyword`` is the keyword part of it (so the cosine is
``similarity - keyword``). ``relations`` is the boost from related memories and the thread, already
weighted (see :mod:`memlane.retrieval.support`). With a time phrase ``recency`` is how well the
memory's time fits the phrase's window instead of how recent it is.

``pinned`` is relevance-gated (:func:`pin_signal`): 1 for a pinned memory that is among the
``PIN_CLOSEST`` (3) candidates closest to the question in meaning and whose cosine is within
``MEMORY_PIN_MARGIN`` of the best candidate's (within twice the margin when the pinned memory shares a
word with the question: keyword evidence; or when the question asks what the user likes and the memory
says what they like, :func:`same_aspect`), else 0. A pin is the user saying
"this matters", so a pinned memory that answers the question about as well as the best match ranks
ahead of unpinned ones: its weight (0.50) is more than the importance and recency spread of a plain
question (0.20 + 0.15) plus the similarity it may trail by. A pinned memory further away gets nothing
from its pin: it ranks as if it were not pinned, so its pin never lifts it over memories that answer the
question. The gate compares cosines, not relevance: the keyword part of relevance is normalised over
the user's memories, so in a small store one shared name is worth 2 cosine units and a gap in it says
little about which memory answers ("Tell me about my brother Rafael": the pinned "emergency contact is
their brother Rafael" trailed the other Rafael memories by 0.3 in relevance, 0.1 in cosine). A listing
without a question (context mode ``all``) counts every pin. The seed's flat ``0.10 × pinned`` had
neither property: too small to lift a relevant pin over a newer, closer match, and given to a pinned
memory however unrelated. The margin is measured in docs/benchmarks.md (``benchmarks/pin_margin.py``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from memlane.model.config import Settings
from memlane.model.record import MemoryRecord, ScoreBreakdown
from memlane.retrieval.intent import QueryPlan
from memlane.retrieval.timephrases import TimeWindow

DEFAULT_WEIGHTS = {"similarity": 0.55, "importance": 0.20, "recency": 0.15, "pinned": 0.50}
PIN_CLOSEST = 3  # a pin counts only for one of the 3 candidates closest to the question (docs/benchmarks.md)


# a question asking what the user likes, and a memory saying what they like: evidence as good as a shared
# word ("What do I like to read?" / the pinned "User's favourite author is Octavia Butler.")
_ASKS_LIKING = re.compile(
    r"\b(?:(?:do|does|did) (?:I|the user|we) (?:\w+ )?(?:like|love|enjoy|prefer)|favou?rites?)\b",
    re.IGNORECASE,
)
_STATES_LIKING = re.compile(r"\b(?:likes?|loves?|enjoys?|prefers?|favou?rite|fan of|into)\b", re.IGNORECASE)


# a question asking whom the user supports, and a memory saying whom they support ("Which team does the user
# follow?" / the pinned "User is a lifelong Hibernian supporter.")
_ASKS_SUPPORT = re.compile(r"\b(?:follows?|supports?|root(?:s)? for|cheers? (?:for|on))\b", re.IGNORECASE)
_STATES_SUPPORT = re.compile(
    r"\b(?:follows?|supports?|supporter|fan|roots? for|season ticket)\b", re.IGNORECASE
)


# a question about what the user eats, and a memory saying what they must not or do not eat ("What should you
# know about my food?" / the pinned "User is coeliac.")
_ASKS_FOOD = re.compile(
    r"\b(?:food|foods|eat|eating|eats|diet|meals?|dinner|lunch|breakfast|cook|cooking|recipes?|"
    r"restaurants?|snacks?|allerg\w*|intoleran\w*)\b",
    re.IGNORECASE,
)
_STATES_DIET = re.compile(
    r"\b(?:allerg\w*|intoleran\w*|coeliac|celiac|gluten|lactose|vegan|vegetarian|pescatarian|"
    r"halal|kosher|diabetic|keto)\b",
    re.IGNORECASE,
)


# a question about how the assistant should answer, and a memory saying how the user wants answers ("Which
# units should you use for my oven?" / the pinned "User prefers answers in celsius.")
_ASKS_HOW = re.compile(
    r"\b(?:should|would|do|will) you (?:use|give|write|answer|reply|explain|format|show)\b|"
    r"\bhow (?:should|do) you (?:answer|reply|explain|write)\b",
    re.IGNORECASE,
)
_STATES_STYLE = re.compile(
    r"\bprefers? (?:answers|replies|responses|explanations)\b|"
    r"\b(?:answers|replies|responses) (?:in|with|that|kept)\b",
    re.IGNORECASE,
)


_ASPECTS = ((_ASKS_SUPPORT, _STATES_SUPPORT), (_ASKS_FOOD, _STATES_DIET), (_ASKS_HOW, _STATES_STYLE))


def same_aspect(query: str, record: MemoryRecord) -> bool:
    """Whether ``query`` asks what the user likes (or whom they support, what they eat, how to answer them)
    and ``record`` says it."""
    if any(asks.search(query) and states.search(record.summary) for asks, states in _ASPECTS):
        return True
    return bool(_ASKS_LIKING.search(query)) and (
        (record.key or "").startswith("pref:") or bool(_STATES_LIKING.search(record.summary))
    )


def pin_signal(
    record: MemoryRecord,
    cosine: float,
    closest: Sequence[float],
    margin: float,
    *,
    shares_words: bool = False,
) -> float:
    """1.0 when ``record`` is pinned and relevant: its ``cosine`` to the question at least the
    :data:`PIN_CLOSEST`-th of the search's candidates' cosines (``closest``, any order) and within
    ``margin`` of the best, or within twice the margin when it ``shares_words`` with the question
    (keyword evidence); otherwise 0.0."""
    if not record.pinned or not closest:
        return 0.0
    top = sorted(closest, reverse=True)[:PIN_CLOSEST]
    reach = margin * (2.0 if shares_words else 1.0)
    return 1.0 if cosine >= top[-1] - 1e-9 and top[0] - cosine <= reach + 1e-9 else 0.0


def recency_decay(record: MemoryRecord, now: datetime, half_life_days: float) -> float:
    """1.0 for a memory touched now, 0.5 after one half-life (last verified, else last updated)."""
    touched = record.last_verified_at or record.updated_at
    if record.valid_from and record.type.value in ("episodic", "session"):
        touched = record.valid_from  # an event is as recent as when it happened
    age_days = max(0.0, (now - touched).total_seconds() / 86400.0)
    return math.pow(0.5, age_days / max(half_life_days, 1e-6))


def question_recency_weight(settings: Settings, plan: QueryPlan) -> float:
    """The recency weight for this question: raised by recall intent, lowered for a question about
    the past (recency then only breaks ties), at least the time-phrase weight with a time window."""
    weight = settings.memory_rerank_weights.get("recency", DEFAULT_WEIGHTS["recency"])
    if plan.recall:
        weight *= settings.memory_recall_recency_factor
    elif plan.history:
        weight *= settings.memory_history_recency_factor
    if plan.window is not None:
        weight = max(weight, settings.memory_time_phrase_weight)
    return weight


def time_fit(record: MemoryRecord, window: TimeWindow) -> float:
    """1.0 inside the window; outside it 0.5 at the edge (what happened the day after "in March" is not in
    March), halving again every seventh of the window's length (at least every day): a day off "last week"
    is 0.25, a week off "in March" about 0.15."""
    moment = record.valid_from or record.created_at
    distance = window.distance_days(moment)
    edge = 0.5 if distance > 0 else 1.0
    return edge * math.pow(0.5, distance / max(window.days / 7.0, 1.0))


def composite(
    record: MemoryRecord,
    similarity: float,
    now: datetime,
    weights: Mapping[str, float],
    *,
    half_life_days: float = 30.0,
    relation_strength: float = 0.0,
    relation_weight: float = 0.0,
    keyword: float = 0.0,
    decay_half_life_days: float | None = None,
    recency: float | None = None,
    recency_weight: float | None = None,
    boost: float = 0.0,
    brevity: float = 0.0,
    subject: float = 0.0,
    kind: float = 0.0,
    pin: float | None = None,
    type_weight: float = 1.0,
) -> ScoreBreakdown:
    """Score one candidate; ``final`` orders results. ``recency`` / ``recency_weight`` override the
    decay and its weight (time phrases, recall intent); ``boost`` is an already weighted relation term;
    ``brevity``, ``subject`` and ``kind`` are subtracted (:mod:`memlane.retrieval.brevity`,
    :mod:`memlane.retrieval.subject`, :mod:`memlane.retrieval.answer_kind`); ``pin`` is the pinned signal of a
    search (:func:`pin_signal`), ``None`` (a listing, no question) counts the record's pin as it is;
    ``type_weight`` scales the final score (inferred insights rank low)."""
    w = {**DEFAULT_WEIGHTS, **weights}
    importance = (record.importance - 1) / 4.0
    fresh = recency_decay(record, now, half_life_days) if recency is None else recency
    pinned = (1.0 if record.pinned else 0.0) if pin is None else pin
    relations = relation_weight * relation_strength + boost
    used = {
        "similarity": w["similarity"],
        "importance": w["importance"],
        "recency": w["recency"] if recency_weight is None else recency_weight,
        "pinned": w["pinned"],
    }
    final = (
        used["similarity"] * (similarity + keyword)
        + used["importance"] * importance
        + used["recency"] * fresh
        + used["pinned"] * pinned
        + relations
        - brevity
        - subject
        - kind
    )
    decay = 1.0
    if decay_half_life_days and not record.pinned:
        age_days = max(0.0, (now - record.created_at).total_seconds() / 86400.0)
        decay = math.pow(0.5, age_days / decay_half_life_days)
    return ScoreBreakdown(
        similarity=similarity + keyword,
        keyword=keyword,
        importance=importance,
        recency=fresh,
        pinned=pinned,
        relations=relations,
        brevity=brevity,
        subject=subject,
        kind=kind,
        decay=decay,
        type_weight=type_weight,
        weights=used,
        final=final * decay * type_weight,
    )
