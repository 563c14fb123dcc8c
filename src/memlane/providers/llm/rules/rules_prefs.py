"""Preferences and interests: likes, dislikes, "I prefer", habitual choices, favourites, hobbies, habits.

Likes and dislikes of one topic share ``pref:<topic>`` so a flip ("I like coffee" -> "I hate coffee")
lands on the same slot; choices ("I prefer aisle seats", "I always pick an aisle seat") key on the
head noun (``pref:seat``) because they pick one value among several.
"""

from __future__ import annotations

import re

from memlane.providers.llm.rules.facts import Clause, Fact
from memlane.providers.llm.rules.helpers import category_for, noun_phrase, topic
from memlane.providers.llm.rules.text import slug

_I = re.IGNORECASE
_ADV = (
    r"(?:(?:really|absolutely|especially|also|totally|truly|just|still|kind of|genuinely|quite|very much|"
    r"do|so|actually|definitely|honestly|particularly|mostly|generally|always|now|also really) )*"
)
_LIKE = re.compile(
    rf"^I {_ADV}(?P<verb>like|love|enjoy|adore|dig|am into|am really into|am a (?:big |huge |massive |great )?"
    r"fan of|am passionate about|am obsessed with|am crazy about|am addicted to|am a \w+ lover|"
    r"have a soft spot for|have a weakness for)(?P<v> .+)$",
    _I,
)
_DISLIKE = re.compile(
    rf"^I {_ADV}(?P<verb>hate|dislike|detest|loathe|despise|cannot stand|do not like|do not enjoy|"
    r"do not care for|do not love|am not (?:really |that |very |much of )?(?:a (?:big |huge )?fan of|into|keen on|"
    r"fond of)|am no longer (?:a fan of|into)|never liked|can not stand|"
    r"have never liked|no longer like|no longer enjoy|do not really like|do not really enjoy)(?P<v> .+)$",
    _I,
)
_PREFER = re.compile(
    r"^I (?:usually |generally |always |strongly |definitely |much |really |tend to |would rather |"
    r"also )*prefer (?P<v>.+?)(?: (?:to|over|rather than|instead of) (?P<other>.+))?$",
    _I,
)
_CHOICE = re.compile(
    r"^I (?:always|usually|normally|typically|generally|tend to|mostly|only|almost always) "
    r"(?:pick|choose|get|go for|order|book|take|sit in|sit by|request|ask for|opt for|select|reserve|"
    r"drink|wear|buy) (?P<v>.+)$",
    _I,
)
_FAVOURITE = re.compile(
    r"^my (?:all-time |absolute |current |very )?(?:favou?rite|preferred|fave|go-to) (?P<thing>[\w' -]+?) "
    r"(?:is|are|has always been|would be) (?P<v>.+)$",
    _I,
)
_HOBBY = re.compile(
    r"^my (?:main |favou?rite |big )?(?:hobby|hobbies|passion|pastime) (?:is|are|include) (?P<v>.+)$", _I
)
_PLAY = re.compile(
    r"^I (?:also |regularly |still |often |sometimes )*(?:play|practice|practise|do) (?:the )?(?P<v>guitar|piano|"
    r"violin|drums|bass|cello|flute|saxophone|ukulele|tennis|football|soccer|basketball|chess|golf|"
    r"volleyball|badminton|squash|rugby|cricket|hockey|baseball|padel|yoga|pilates|karate|judo|jiu-jitsu|"
    r"boxing|climbing|bouldering|crossfit|video games|board games|[A-Z][\w-]+)\b",
    _I,
)
_HOBBY_VERB = re.compile(
    r"^I (?:also |regularly |love to |like to )*(?P<v>knit|paint|draw|bake|garden|hike|surf|ski|snowboard|"
    r"swim|cycle|dance|sing|climb|sew|crochet|skate|fish|write poetry|write fiction|collect [\w ]+|"
    r"run marathons|do pottery)(?: (?:a lot|regularly|often|on weekends|every \w+|in my free time|for fun))?$",
    _I,
)
_HABIT = re.compile(
    r"^I (?:usually |always |normally |often |sometimes |typically |try to )?(?P<verb>[a-z]+) (?P<v>.+?) "
    r"(?P<freq>every (?:single )?(?:day|morning|evening|night|week|weekend|month|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)|(?:once|twice|\w+ times) (?:a|per) (?:day|week|month|year)|daily|"
    r"weekly|on weekends|on weekdays)\b",
    _I,
)
_USED_TO = re.compile(r"^I used to (?P<v>.+)$", _I)
_SKIP_OBJECTS = re.compile(
    r"^\s*(?:you|it|that|this|them|those|these|your|the idea|how|what|when|where|why|him|her|us|"
    r"talking to you|chatting|this conversation|the answer|your answer|this app|that one)\b",
    _I,
)


def _object(raw: str) -> str | None:
    if _SKIP_OBJECTS.match(raw):
        return None
    np = noun_phrase(raw)
    return np or None


def like(c: Clause) -> Fact | None:
    for pattern, positive in ((_DISLIKE, False), (_LIKE, True)):
        m = pattern.match(c.text)
        if not m:
            continue
        obj = _object(m.group("v"))
        if not obj:
            return None
        t = topic(obj)
        strong = m.group("verb").lower() in (
            "love",
            "adore",
            "hate",
            "detest",
            "loathe",
            "despise",
            "cannot stand",
        )
        category = "Preferences"
        return Fact(f"pref:{t}", t, c.text, category, 3 if strong else 2, positive=positive)
    return None


def prefer(c: Clause) -> Fact | None:
    m = _PREFER.match(c.text) or _CHOICE.match(c.text)
    if not m:
        return None
    obj = _object(m.group("v"))
    if not obj:
        return None
    value = noun_phrase(re.sub(r"^(?:an?|the|my) ", "", obj, flags=_I))
    return Fact(f"pref:{topic(value, head=True)}", topic(value), c.text, "Preferences", 3)


def favourite(c: Clause) -> Fact | None:
    if m := _FAVOURITE.match(c.text):
        thing = slug(m.group("thing"))
        value = noun_phrase(m.group("v"))
        return Fact(
            f"pref:favourite:{thing}",
            value.lower(),
            c.text,
            "Preferences",
            3,
            entities=[value] if value[:1].isupper() else [],
        )
    if m := _HOBBY.match(c.text):
        return Fact(None, noun_phrase(m.group("v")).lower(), c.text, "Interests", 2)
    return None


def hobby(c: Clause) -> Fact | None:
    m = _PLAY.match(c.text) or _HOBBY_VERB.match(c.text)
    if not m:
        return None
    v = m.group("v").lower()
    return Fact(f"interest:{slug(v)}", v, c.text, "Interests", 2)


def habit(c: Clause) -> Fact | None:
    if m := _HABIT.match(c.text):
        what = noun_phrase(m.group("v")) or m.group("v")
        t = topic(what) if re.search(r"[a-z]{3}", what.split()[-1]) else slug(m.group("verb"))
        return Fact(f"habit:{t}", m.group("freq").lower(), c.text, category_for(c.text, "Personal"), 2)
    if m := _USED_TO.match(c.text):
        return Fact(None, m.group("v").lower(), c.text, category_for(c.text, "Personal"), 2)
    return None


RULES = (like, prefer, favourite, hobby, habit)
