"""A short topic phrase for a turn, from the user's own words: "hey so um can u pls book the 9:40
train to Porto" -> "the 9:40 train to Porto". Deterministic keyword extraction: the text is cut into
runs of content words (stop words, fillers, request verbs and chat shorthand break a run; "of", "to",
"for", ... may join two content words, as in "trip to Lisbon"), each run is scored by its words (a
capitalised name, a number or a long word counts more) and the best one, at most ``MAX_WORDS`` words
(with the "the" before it), is the topic. Every word of it is the user's as typed; when no run is found it is the first words.
"""

from __future__ import annotations

import re

from memlane.providers.llm.rules.lexicon import words
from memlane.providers.llm.rules.text import clean

MAX_WORDS = 6

# words that say nothing about what the turn was about
_STOP = words(
    """a an the this that these those some any each every all both either neither no not nor
    i me my mine myself we us our ours you your yours he him his she her hers it its they them their
    theirs who whom whose which what when where why how whether there here
    is am are was were be been being has have had having do does did doing done will would shall
    should can could may might must ought im ive id ill dont doesnt didnt cant wont isnt arent wasnt
    i'm i've i'd i'll don't doesn't didn't can't won't isn't aren't wasn't it's that's there's what's
    let's you're we're they're
    and or but so yet if then than because cause since as while though although unless until also too
    very really just only even still already again quite rather pretty kind sort lot lots bit much
    many more most less least few little such same other another else maybe perhaps probably
    actually basically literally honestly seriously definitely totally anyway anyways like well oh ah
    um umm uh uhh hmm hm er erm eh ok okay yes yeah yep yup no nope nah right sure cool great nice
    thanks thank thx ty cheers please pls plz hey hi hello hiya yo lol haha omg btw fyi idk tbh imo
    imho u ur rn abt bc cuz coz tho thru gonna wanna gotta kinda sorta smth sth pic pics
    about into onto over under after before during through between against without within around
    up down out off away back
    want wants wanted need needs needed help helps helped know knows knew think thinks thought
    wonder wondering wondered try trying tried tell told say said says ask asked asking get got
    getting give gave make made making let go going went come coming take took look looking looked
    find found see saw show check book booking remind send write writing put keep use using
    plan planning planned doing thing things stuff something anything everything nothing someone
    anyone everyone one ones way time today tomorrow tonight yesterday now later soon
    morning afternoon evening night week weekend month year day days next last ago
    monday tuesday wednesday thursday friday saturday sunday
    can't could've should've would've tmrw tmr 2day 2morrow asap pm
    decide decided deciding cancel cancelling canceling cancelled canceled choose chose chosen pick
    picked buy bought order ordered call email text schedule update add set create open run play
    search convert translate calculate compare explain summarise summarize list suggest recommend"""
)
# join two content words inside a run: "trip to Lisbon", "recovery after knee surgery"
_JOIN = words("of to for in on at from with and & after near")
_DETERMINERS = words("the a an my our your his her their this that")
_SEGMENT = re.compile(r"[.,;:!?()\"\n]+(?!\d)|\s-+\s|\s/\s")  # "9:40" and "2.5" stay whole
_TOKEN = re.compile(r"[\w'&+#@€$£.:/-]*[\w+#]|&")


def _key(token: str) -> str:
    return token.lower().strip("'")


def _content(token: str) -> bool:
    k = _key(token)
    return (
        bool(k)
        and k not in _STOP
        and k not in _JOIN
        and k not in _DETERMINERS
        and k not in ("user", "user's")
    )


def _score(token: str, first: bool) -> float:
    named = token[0].isupper() and not first and _key(token) != "i"
    return 1.0 + named + 0.5 * any(c.isdigit() for c in token) + 0.5 * (len(token) >= 7)


def _runs(segment: str) -> list[list[tuple[str, float]]]:
    """The runs of content words of one segment, each word with its score; a run is split at its
    joining words too, so that a part of it can be the topic when the whole is too long."""
    tokens = _TOKEN.findall(segment)
    runs: list[list[tuple[str, float]]] = []
    run: list[tuple[str, float]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if _content(tok):
            if not run and i and _key(tokens[i - 1]) == "the":  # "we discussed the 9:40 train"
                run.append((tokens[i - 1], 0.0))
            run.append((tok, _score(tok, i == 0)))
            i += 1
            continue
        # a joining word (and a determiner after it) between two content words keeps the run going
        j = i + 1 if _key(tok) in _JOIN else i
        if j < len(tokens) and _key(tokens[j]) in _DETERMINERS and j > i:
            j += 1
        if run and j > i and j < len(tokens) and _content(tokens[j]):
            run.extend((t, 0.0) for t in tokens[i:j])
            i = j
            continue
        if run:
            runs.append(run)
        run = []
        i += 1
    if run:
        runs.append(run)
    return runs


def _parts(run: list[tuple[str, float]]) -> list[list[tuple[str, float]]]:
    """A run and, when it is longer than ``MAX_WORDS``, its spans between joining words."""
    if len(run) <= MAX_WORDS:
        return [run]
    cuts = [k for k, (_, s) in enumerate(run) if s == 0.0 and _key(run[k][0]) in _JOIN]
    bounds = [-1, *cuts, len(run)]
    spans: list[list[tuple[str, float]]] = []
    for a in range(len(bounds) - 1):
        for b in range(a + 1, len(bounds)):
            span = run[bounds[a] + 1 : bounds[b]]
            while span and span[0][1] == 0.0:  # a determiner left at the start
                span = span[1:]
            if span and len(span) <= MAX_WORDS:
                spans.append(span)
    # a single stretch of content words longer than the limit: its first words
    return spans or [run[:MAX_WORDS]]


def topic_phrase(text: str) -> str:
    """The topic of ``text`` in at most ``MAX_WORDS`` of its words; never empty for a non-empty text
    ("the turn" for one with no word at all). The same text always gives the same phrase."""
    text = clean(text)
    best: list[tuple[str, float]] = []
    best_score = 0.0
    for segment in _SEGMENT.split(text):
        for run in _runs(segment):
            for part in _parts(run):
                score = sum(s for _, s in part)
                if score > best_score:  # the first of equals wins
                    best, best_score = part, score
    if best:
        return " ".join(t for t, _ in best)
    first = _TOKEN.findall(text)[:MAX_WORDS]
    return " ".join(first) or "the turn"
