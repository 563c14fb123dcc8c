"""The last rule: a first-person statement no other rule read is still kept, as the user said it.

An LLM extractor keeps most durable first-person statements; the rules used to drop every phrasing
they had no pattern for, so unseen wordings were lost. This rule keeps a clause that states something
lasting about the user in the present ("I coach my daughter's football team"), with enough content to
mean something. It leaves out passing states and chatter ("I am tired", "I think so", "I need help
with this"), past events (the event rules keep the notable ones; "I met a friend for lunch" is not)
except giving something up, which ends a lasting fact ("I sold the Vespa", "I deleted my Instagram account":
the judge retires what it ends), and plans (the plan rules decide those).
"""

from __future__ import annotations

import re

from memlane.model.enums import MemoryType
from memlane.providers.llm.rules.facts import Clause, Fact
from memlane.providers.llm.rules.helpers import category_for
from memlane.providers.llm.rules.lexicon import CONDITIONS, words
from memlane.providers.llm.rules.lexicon_world import DIETS

_I = re.IGNORECASE
_STATEMENT = re.compile(r"^(?:I|my) (?P<verb>[a-z]+)\b", _I)
# passing states, opinions about the conversation, and requests in disguise
_PASSING = re.compile(
    r"^I (?:am|feel|was|have been|am feeling) (?:so |really |very |a bit |kind of |pretty |super |just |not )*"
    r"(?:tired|exhausted|hungry|thirsty|bored|sleepy|sick|ill|busy|stressed|fine|good|ok|okay|alright|great|"
    r"sure|unsure|confused|lost|here|"
    # back to a habit or choice lasts ("back to black coffee", "back on night shifts"); back to normal or home does not
    r"back(?! (?:to|on) (?!(?:normal|work|school|home|bed|sleep|it|you|square one|the drawing board|the office|"
    r"the grind|reality|the start)\b)\w)|ready|excited|happy|sad|upset|annoyed|curious|sorry|glad|"
    r"late|early|done(?! with)|home|awake|online|offline|off|stuck|wondering|asking|joking|kidding|serious|listening)\b"
    r"|^I (?:think|guess|suppose|believe|mean|meant|see|know|understand|agree|disagree|hope|wonder|doubt|bet|"
    r"feel like|forgot|remember|want|would|could|will|was wondering|just wanted|"
    # (a standing constraint is no request: "I must avoid grapefruit", "I need to stay off caffeine")
    r"(?:need|should|must|can|cannot)(?! (?:to )?(?:avoid|stay (?:off|away from)|keep away from|cut out|not (?:eat|drink|have|take)))|"
    r"reckon|say|claim|insist|suggest|wish|worry|keep (?:saying|telling|asking)|"
    r"have a question|have another question|got it|get it|see what you mean)\b"
    r"|\b(?:you|your|this chat|this conversation|the answer|that answer)\b",
    _I,
)
_FOR_NOW = re.compile(r"\b(?:right now|at the moment|this minute|for now)\b", _I)
# a quantity per period is a habit however it is dated: "I am running 25 km a week right now"
_RATE = re.compile(r"\d[\d,.]*\s*[a-z]*\s+(?:a|an|per|every|each)\s+(?:day|week|month|year|night)\b", _I)
_PAST = re.compile(
    r"^I (?:just |finally |recently |also )*(?:[a-z]{3,}ed|went|got|made|took|bought|sold|left|met|saw|ran|won|"
    r"lost|found|gave|began|wrote|drove|flew|ate|spent|paid|told|had|did|came|became|broke|caught|built)\b",
    _I,
)
# ending or disposing of something: a change of state that lasts, said in the past tense
_GIVE_UP = re.compile(
    r"^I (?:just |finally |recently |also |already |officially )*(?:sold|deleted|uninstalled|cancell?ed|closed|gave(?= (?:my|our) )|"
    r"deactivated|unsubscribed from|gave (?:up|away)|got rid of|donated|quit|stopped|ditched|"
    r"dumped|binned|scrapped|abandoned|retired from|resigned from|broke up with|returned|moved out of|shut down|"
    r"sold off|traded in|cut out|gave back|handed back|gave up on)\b (?!to\b|for\b|by\b|at\b|in\b|on\b|with\b|up\b|home\b|from\b)\S",
    _I,
)
# a named thing acquired is owned from now on: "picked up some Nike Pegasus for the trails", "bought a Kindle"
_ACQUIRED = re.compile(
    r"^I (?:just |finally |recently |also )*(?:bought|got|picked up|ordered|treated myself to|"
    r"ended up (?:with|getting|buying)|"
    r"invested in) (?:a |an |some |the |myself |new |pair of |a pair of )*(?:[a-z-]+ )?"
    r"(?-i:[A-Z])[\w'-]*[a-z]",
    _I,
)
# taking something up is a habit from now on: "I started using Obsidian", "I took up the ukulele"
# leaving a place of work, study or membership: "left the café back in April" (not "left my keys")
_LEFT_PLACE = re.compile(
    r"^I (?:just |finally |recently |officially )*(?:left|quit|dropped out of) (?:the|my|our) (?:[\w'-]+ ){0,2}?"
    r"(?:job|company|firm|caf[eé]|restaurant|bar|clinic|hospital|practice|school|university|college|course|bank|"
    r"agency|startup|start-up|studio|office|shop|store|bakery|lab|team|band|club|choir|gym|church|charity|"
    r"department|warehouse|factory|paper|magazine|council|union|army|navy|police|force|service|programme|program|"
    r"phd|degree|master's|masters|apprenticeship|studies|training)s?\b"
    r"|^I (?:just |finally |recently |officially )*(?:left|quit) (?-i:[A-Z])[\w&'-]*[A-Za-z]",  # "left DPD last month"
    _I,
)
_TAKES_UP = re.compile(
    r"^I (?:just |recently |finally |also )*(?:(?:started|began) [a-z]{2,}ing|took up|got into|switched to|"
    # "moved everything over to Obsidian", "migrated the blog to Hugo"
    r"(?:switched|moved|migrated|ported|converted) (?:[\w'-]+ ){1,3}?(?:over )?to (?!(?:bed|work|school|the office|the city)\b)|"
    # "started salsa classes", "joined a climbing club", "signed up for a pottery course"
    r"(?:started|began|joined|signed up for|enrolled in) (?:taking |doing |attending |going to )?(?:a |an |some |the )?"
    r"(?:[\w'-]+ ){0,3}?(?:class|classes|lessons|course|club|team|league|choir|band|group|gym|programme|program|"
    r"therapy|training|workshop|bootcamp)\b|"
    r"moved over to|went (?:part-time|full-time|freelance|self-employed|remote|hybrid|sober|teetotal|vegan|"
    r"vegetarian|plant-based|gluten-free|dairy-free|back to (?!(?:bed|sleep|work|school|the office)\b)\w+)) ?\S?",
    _I,
)
# a diet or a course of medication "at the moment" still holds for a while
_HELD = re.compile(
    r"\b(?:diet|medication|meds|antibiotics|treatment|course of|between jobs|unemployed|job hunting|"
    r"(?:maternity|paternity|parental|sick) leave|"
    + "|".join(sorted(w.replace("_", " ") for w in DIETS))
    + r")\b",
    _I,
)
_NAMED = re.compile(r"\b[A-Z][a-z][\w'-]*")  # a name says a lot in one word: "I support Liverpool"
_DONE_WITH = re.compile(r"^I am (?:so |totally |completely |officially )?done with\b", _I)
_WORD = re.compile(r"[a-z0-9]*[a-z][a-z0-9]*")  # "S23" and "PS5" say something
_STOP = words("""the and for with have has had was were are that this you not but very really just also like about
    from them their they there what when which been being some much many more most into over then than its
    all any our out get got one two now still even too lot lots bit thing things stuff sometimes often usually
    always occasionally""")
_FUTURE = re.compile(
    r"^I am (?:\w+ )?(?:turning|going|about to|planning|hoping|getting|starting|leaving|moving)\b"
    r"|\b(?:will|next (?:week|month|year|weekend)|tomorrow|soon)\b",
    _I,
)
_MIN_CONTENT = 3  # the verb and at least two more words that say something
# verbs of a standing activity: one word after them says enough ("I play the bassoon", "I knit scarves")
_LASTING = words(
    "play plays speak speaks own owns drive drives ride rides collect collects coach coaches teach "
    "teaches study studies learn learns practise practice practises practices knit knits brew brews "
    "grow grows breed breeds keep keeps restore restores build builds volunteer volunteers support "
    "supports follow follows listen listens watch watches read reads"
)
# "now" marks a change of state: "I take the bus now" says enough with one word after the verb
_NOW = re.compile(r"(?<!right )(?<!for )(?<!just )\bnow\b(?! and then)", _I)


def statement(c: Clause) -> Fact | None:
    m = _STATEMENT.match(c.text)
    if c.subject.kind not in ("user", "relation", "pet") or m is None or _PASSING.search(c.text):
        return None
    if _FOR_NOW.search(c.text) and not _RATE.search(c.text) and not _HELD.search(c.text):
        return None
    gives_up = bool(
        _GIVE_UP.match(c.text)
        or _DONE_WITH.match(c.text)
        or _LEFT_PLACE.match(c.text)
        or _TAKES_UP.match(c.text)
    )  # what is taken up may be one word too: "I took up pottery"
    # what is given up may be one word: "I sold the car", "I am done with gaming"
    content = [w for w in _WORD.findall(c.text[m.end() :].lower()) if len(w) >= 3 and w not in _STOP]
    # (not where the user is: "I am on the train now")
    changed = gives_up or c.replacing or (m.group("verb").lower() != "am" and bool(_NOW.search(c.text)))
    # a name, a rate ("100 km a week") or a condition ("has autism") says as much as another word
    named = m.group("verb").lower() not in ("am", "was") and _NAMED.search(
        c.text[m.end() :]
    )  # not "I am in Paris"
    weighty = bool(
        named or _RATE.search(c.text) or set(content) & CONDITIONS or m.group("verb").lower() in _LASTING
    )
    if 1 + len(content) + weighty < _MIN_CONTENT - changed:  # the verb counts however short ("I do", "I am")
        return None
    # what replaced something just ended may be told in the past: "I sold the car, I bought an e-bike"
    kept_on = c.replacing or _TAKES_UP.match(c.text) or _ACQUIRED.match(c.text)
    if (_PAST.match(c.text) and not gives_up and not kept_on) or _FUTURE.search(c.text):
        return None
    return Fact(
        None, c.text.lower(), c.text, category_for(c.text), 2, MemoryType.SEMANTIC, tags=["statement"]
    )


RULES = (statement,)
