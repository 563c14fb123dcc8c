"""Plans and goals that need a check (a destination or date; not about the conversation), choices
and events.

Decisions, plain plans, upcoming events and stated goals are rows of ``patterns.yaml`` (group
``plans``). Plans, choices and events are episodic. A choice is a verdict on something offered ("I said
no to the transfer", "I'm turning their offer down", "I'm accepting the scholarship", "we're settling on
the green sofa", "we're going with the cheaper quote"), something the user is cancelling ("I'm cancelling
my Spotify plan") or a decision told as a clause ("decided we're keeping the old car"): what the rows of
``decided`` (which need "to", "on", "that") do not read.
"""

from __future__ import annotations

import re

from memlane.model.enums import MemoryType
from memlane.providers.llm.rules.facts import Clause, Fact
from memlane.providers.llm.rules.helpers import DATE, category_for, strip_past_time
from memlane.providers.llm.rules.lexicon import RELATION_ALIASES, RELATIONS
from memlane.providers.llm.rules.lexicon_world import DIETS, MONTHS

EPISODIC = MemoryType.EPISODIC
_I = re.IGNORECASE
_GOING = re.compile(
    r"^I am (?P<verb>going|traveling|travelling|flying|heading|off|moving|relocating|driving) to (?P<v>.+)$",
    _I,
)
_STRONG_TIME = re.compile(
    r"\b(?:next|this) (?:week|weekend|month|year|summer|winter|spring|autumn|fall|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)\b|\btomorrow\b|\bin (?:\d{4}|" + "|".join(MONTHS) + r")\b|\bsoon\b",
    _I,
)
_WANT = re.compile(
    r"^I (?:really |eventually |ultimately |also |still |desperately |definitely |badly |one day )*"
    r"(?P<verb>want|hope|aim|aspire|dream|am hoping|am aiming|am trying|am working towards|am working toward|"
    r"am saving up|am saving|am determined|am committed|need) (?:to|of|towards|toward|for) (?P<v>.+)$",
    _I,
)
_NOT_GOALS = re.compile(
    r"^(?:know|ask|see|check|understand|talk|chat|say|tell|thank|test|clarify|confirm|discuss|hear|share|"
    r"mention|add|remember|forget|make sure|be sure|start over|try|figure out|find out|get this|fix|"
    r"go to (?:bed|sleep)|sleep|eat|go home|leave|log|install|set up|run this|do this|write|read|"
    r"order|cancel my order|change (?:the|this)|update (?:the|this)|use (?:the|this)|"
    r"get (?:the|this|that)|have (?:a|the|some) (?:look|word|chat|go)|be honest|be clear|apologi[sz]e|vent)\b",
    _I,
)
_EVENT = re.compile(
    r"^I (?:just |recently |finally |officially |also |have |had )*(?P<verb>got (?:promoted|married|engaged|"
    r"divorced|hired|fired|laid off|a promotion|a raise|accepted|into|a new job|a job|my license|my licence|"
    r"my driving licen[cs]e|my degree|my diploma|certified|my citizenship|a scholarship)|passed|failed (?:my|the|an?)|"
    r"finished|completed|graduated|started (?:a|an|my|working(?! out)|(?:(?:primary|secondary|high|middle|nursery|grad|medical|law|big) )?(?:school|university|college|nursery|kindergarten|preschool|daycare|uni)|therapy)|quit|joined|"
    r"left (?:my|the) (?:job|company|band|team|university|college)|won|lost my job|lost \d+|booked|signed up|"
    r"enrolled|bought (?:a|an|my|our) (?:first |new |second |used )?(?:house|home|flat|apartment|condo|car|bike|"
    r"motorbike|motorcycle|boat|van|piano)|sold (?:my|our|the) (?:house|home|flat|apartment|car|company|business)|"
    r"ran (?:a|an|my first|the) (?:marathon|half marathon|half-marathon|ultra|race|5k|10k)|visited (?=[A-Z])|"
    r"(?:ran|swam|cycled|rode|walked|hiked|rowed) (?:about |around |nearly |almost |over )?\d+(?:\.\d+)? ?"
    r"(?:k|km|kms|kilometers|kilometres|miles?|mi|laps|lengths)\b|"
    r"did (?:a|an|my|my first|the) (?:\d+(?:\.\d+)? ?(?:k|km|mile|miles) |long |short |first )?"
    r"(?:run|race|swim|ride|hike|marathon|half marathon|triathlon|parkrun|time trial)\b|"
    r"travell?ed to|launched|published|retired|broke up|gave birth|had a baby|paid off|cancell?ed|renewed|"
    r"applied (?:for|to)|registered for|moved out|had (?:surgery|an? (?:operation|accident|baby|surgery))|"
    r"volunteered|turned down|accepted (?:a|an|the) (?:job|offer|position|role)|submitted my|defended my|"
    r"got back from)\b(?P<v>.*)$",
    _I,
)
# what quitting a habit or a diet names: "quit keto", "quit vaping", "quit sugar"
_HABIT_QUIT = re.compile(
    r" (?:(?:the|my) )?(?:[a-z]+ing\b|(?:"
    + "|".join(sorted(w.replace("_", " ") for w in DIETS))
    + r"|sugar|caffeine|coffee|alcohol|booze|meat|dairy|gluten|carbs|cigarettes|social media)\b)",
    _I,
)
# what an offer is: the object of "accepting" / "declining" (a bare "I took the bus" is no choice)
_OFFERED = (
    r"offer|job|position|role|post|posting|promotion|place|spot|scholarship|proposal|invitation|invite|"
    r"transfer|secondment|nomination|contract|deal|bid|quote|opportunity|internship|residency|fellowship|"
    r"apartment|flat|house"
)
_OFFER = rf"(?:(?:the|a|an|my|their|this|that|his|her|our) )?(?:[\w'-]+[ -]){{0,4}}?(?:{_OFFERED})s?\b"
# "going with the ..." picks an option unless it says whom the user goes with ("going with the kids")
_COMPANY = "|".join(
    sorted(
        {
            *RELATIONS,
            *RELATION_ALIASES,
            "friends",
            "team",
            "group",
            "family",
            "gang",
            "crew",
            "flow",
            "others",
            "rest",
            "lads",
            "girls",
            "guys",
            "boys",
            "class",
            "school",
            "club",
        },
        key=len,
        reverse=True,
    )
)
_CHOICE = re.compile(
    r"^I (?:have |had |just |finally |eventually |officially |also |am )*(?:"
    r"(?P<say>said|say|saying) (?P<answer>no|yes) to (?P<v>.+)"
    rf"|(?:turning|turned|turn) (?P<down>{_OFFER}(?: [\w'-]+){{0,3}}?) down\b.*"
    r"|(?P<verb>turning down|declining|declined|rejecting|rejected|refusing|refused|accepting|taking|took|"
    rf"passing on|passed on) (?P<offer>{_OFFER}.*)"
    r"|(?P<pick>opting for|opted for|settling on|settled on|going ahead with|went ahead with|chose|"
    # "picked the green tiles": a choice when it says it ended a deliberation (not "picked strawberries")
    r"(?:picked|selected|went for)(?=.* (?:in the end|eventually|after all|over (?:the|a|an) |instead\b))) "
    r"(?P<picked>(?:the|a|an|option|between) .+)"
    rf"|(?:going|gone|went|go) with (?P<option>(?:the|this|that|a|an|option) (?!(?:{_COMPANY})\b).+)"
    r"|(?:going to |will )?(?:cancelling|canceling|cancel|unsubscribing from|unsubscribe from) (?P<cancelled>.+)"
    r")$",
    _I,
)
_DECIDED_CLAUSE = re.compile(
    r"^I (?:have |had |just |finally |eventually |officially |now |also )*(?:decided|made up my mind|made my decision)"
    r",? (?P<v>(?:I|we) (?:am|are|will|have|shall|can|cannot|do not|am not|are not)\b.+)$",
    _I,
)
_EVENT_SKIP = re.compile(
    r"^(?:got (?:it|that|this|you)|read (?:it|that|this|your)|watched (?:it|that))\b", _I
)


def _strong_future(text: str) -> bool:
    """A destination or a date: "going to Peru", "going to the dentist tomorrow" (not "going to bed")."""
    return bool(_STRONG_TIME.search(text) or DATE.search(text) or re.match(r"(?:the )?[A-Z][a-z]+", text))


def going(c: Clause) -> Fact | None:
    """``I am going to Peru in May``: a plan when a destination or a date follows (not "going to bed")."""
    if (m := _GOING.match(c.text)) and _strong_future(m.group("v")):
        v, verb = m.group("v"), m.group("verb").lower()
        category = "Personal" if verb in ("moving", "relocating") else category_for(c.text, "Travel")
        return Fact(None, v.lower(), f"I said I am {verb} to {v}", category, 3, EPISODIC, tags=["plan"])
    return None


def want(c: Clause) -> Fact | None:
    """``I want to learn Portuguese``: a goal, unless it is about the conversation ("I want to know ...")."""
    if (m := _WANT.match(c.text)) and not _NOT_GOALS.match(m.group("v")):
        if m.group("verb").lower() == "need" and not _STRONG_TIME.search(c.text):
            return None
        return Fact(None, m.group("v").lower(), c.text, "Goals", 3, tags=["goal"])
    return None


def choice(c: Clause) -> Fact | None:
    """A verdict on an offer or a choice between options, and a decision told as a clause: episodic."""
    if m := _DECIDED_CLAUSE.match(c.text):
        text = f"I decided that {m.group('v')}"
    elif m := _CHOICE.match(c.text):
        text = c.text
    else:
        return None
    text = strip_past_time(text)
    return Fact(None, text.lower(), text, category_for(text), 3, EPISODIC, tags=["decision"])


def event(c: Clause) -> Fact | None:
    m = _EVENT.match(c.text)
    if not m or _EVENT_SKIP.match(m.group("verb") + m.group("v")):
        return None
    if not m.group("v").strip() and m.group("verb").lower() in (
        "passed",
        "finished",
        "completed",
        "won",
        "quit",
        "joined",
        "booked",
        "enrolled",
        "launched",
    ):
        return None  # "I passed!", "I won" say too little
    if m.group("verb").lower() == "quit" and _HABIT_QUIT.match(m.group("v")):
        return None  # quitting a diet or a habit ends a lasting fact: the statement rule keeps it
    text = re.sub(r"^I (?:have|had) (?!(?:a|an|surgery)\b)", "I ", strip_past_time(c.text), flags=_I)
    important = re.search(r"married|engaged|baby|gave birth|divorced|surgery|promoted|retired", text, _I)
    return Fact(None, text.lower(), text, category_for(text), 4 if important else 3, EPISODIC, tags=["event"])


RULES = (going, want, choice)  # after the rows of group plans (decisions, plans, goals)
LATE_RULES = (event,)
