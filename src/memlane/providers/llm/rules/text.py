"""Text plumbing: cleaning, contractions, sentence and clause splitting, numbers, slugs."""

from __future__ import annotations

import re

from memlane.providers.llm.rules.lexicon_world import NUMBER_WORDS

MAX_INPUT_CHARS = 4000
MAX_SENTENCES = 40

_QUOTES = str.maketrans({"’": "'", "‘": "'", "`": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "."})
_JUNK = re.compile(r"[^\w\s.,!?;:'\"()/&%+#@€$£¥-]")
_SPACES = re.compile(r"[ \t\r\f\v]+")
_CONTRACTIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"\bI'm\b", "I am"),
        # typed without the apostrophe: "im on lates now", "ive been vegan since may" ("IM" alone stays)
        (r"\b(?:I'm|(?-i:im|Im))\b", "I am"),
        (r"\b(?-i:ive|Ive)\b", "I have"),
        (r"\bI've\b", "I have"),
        (r"\bI'd\b", "I would"),
        (r"\bI'll\b", "I will"),
        (r"\bwe're\b", "we are"),
        (r"\bwe've\b", "we have"),
        (r"\bwe'd\b", "we would"),
        (r"\bcan't\b", "cannot"),
        (r"\bwon't\b", "will not"),
        (r"\b(do|does|did|is|are|was|were|have|has|had|could|should|would)n't\b", r"\1 not"),
        (r"\b(he|she|it|that|there|what|who|where|how|name|birthday|bday)'s\b", r"\1 is"),
        (r"\b(they|you)'re\b", r"\1 are"),
        (
            r"\b(\w+)'s(?= (?:a|an|now|not|just|been|almost|nearly|turning|allergic|vegan|vegetarian|\d+|"
            + "|".join(NUMBER_WORDS)
            + r")\b)",
            r"\1 is",
        ),
        # "backend dev", "a web dev at Zalando": a developer (not "dev team", "dev work")
        (
            r"(?<=[a-z] )(?-i:devs?)(?=\s*(?:$|[,.;!]| at | for | in | from | and | who | working ))",
            "developer",
        ),
    )
)
_NEG_FIX = {  # negations typed without the apostrophe
    "dont": "do not",
    "doesnt": "does not",
    "didnt": "did not",
    "isnt": "is not",
    "arent": "are not",
    "wasnt": "was not",
    "werent": "were not",
    "havent": "have not",
    "hasnt": "has not",
    "hadnt": "had not",
    "cant": "cannot",
    "couldnt": "could not",
    "shouldnt": "should not",
    "wouldnt": "would not",
}
# chat spellings and frequent typos, read as the words they stand for (lower case as typed)
_TYPED = {
    "teh": "the",
    "adn": "and",
    "taht": "that",
    "thier": "their",
    "alot": "a lot",
    "realy": "really",
    "alergic": "allergic",
    "allergc": "allergic",
    "alergy": "allergy",
    "allergie": "allergy",
    "definately": "definitely",
    "becuase": "because",
    "beacuse": "because",
    "recieve": "receive",
    "freind": "friend",
    "freinds": "friends",
    "untill": "until",
    "tommorow": "tomorrow",
    "tomorow": "tomorrow",
    "wich": "which",
    "probaly": "probably",
    "finaly": "finally",
    "beleive": "believe",
    "seperate": "separate",
    "gonna": "going to",
    "wanna": "want to",
    "gotta": "have to",
    "kinda": "kind of",
    "sorta": "sort of",
    "cuz": "because",
    "coz": "because",
    "bc": "because",
    "u": "you",
    "ur": "your",
    "rn": "right now",
    "pls": "please",
    "plz": "please",
    "yrs": "years",
    "yr": "year",
    "hrs": "hours",
    "mins": "minutes",
    "bf": "boyfriend",
    "gf": "girlfriend",
    "hubby": "husband",
    "wifey": "wife",
    "tho": "though",
    "thru": "through",
}
_TYPED_WORD = re.compile(r"\b(" + "|".join(_TYPED) + r")\b")
_NEG_WORD = re.compile(r"\b(" + "|".join(_NEG_FIX) + r")\b", re.IGNORECASE)

_SENTENCE = re.compile(
    r"(?:[^.!?;:\n]|(?<=\d)[.:](?=\d))+(?:[.!?]+|[;:\n]|$)"
)  # "5:30" and "2.5" are no breaks
_ABBREV = re.compile(
    r"\b(?:dr|mr|mrs|ms|st|prof|jr|sr|vs|etc|e\.g|i\.e|approx|no|(?-i:[A-HJ-Z]))\.$", re.IGNORECASE
)
# (a capital letter alone is an initial: "Fontaines D.C.", "J. K. Rowling")
_SUBJECT_START = r"(?:I|i|my|My|MY|we|We|our|Our)\b"
_CLAUSE_BREAK = re.compile(
    # an interjection ends what came before it: "started crocheting lol, kickboxing still 3x a week"
    r"\s+(?:lol|lmao|haha+|tbh|ngl|smh|jk)\s*[,!-]\s*(?=\w)"
    r"|\s*,\s*(?:(?:and|but|so|plus|though|also)\s+)?(?=" + _SUBJECT_START + r")"
    # another subject with a value of its own, or a comment on the user: "I rent a flat in Croydon and the rent is
    # £1,450 a month", "... in Year 1 and the homework is killing me" (not "my oven is an old one and the dial is
    # in fahrenheit": what the dial says is said of the oven)
    r"|,?\s+(?:and|but|so)\s+(?=(?:the|this|that) (?:[a-z]+ ){1,2}(?:is|was|are|were|has|have)\b"
    r"(?:[^,.;]*?[\d£$€]|[^,.;]*\b(?:me|us)\s*(?:$|[,.;!])))"
    r"|\s+(?:and|but|so|plus|although|though|while|whereas|-)\s+(?=" + _SUBJECT_START + r")"
    r"|\s*,\s*(?=(?:so|because|since|but|though|although)\s)"
    r"|\s*,\s*(?=back (?:on|to|in|at) (?:the |my )?[a-z]+)"
    # a comment on what was said: ", it's the only time that works" (not a value: ", it's on Ghost now")
    r"|\s*,\s*(?=(?:it|that|this) (?:is|was|'s) (?:the only|the best|the worst|so|such|really|very|too|a bit|kind of|"
    r"pretty|great|lovely|nice|amazing|awful|hard|fun|easier|better|worse)\b)"
    r"|\s*,\s*(?=(?:just )?(?:had|ate|tried|saw|got|went|watched) (?:a|an|the|some|my|to)\b)"  # ", had a bitter one"
    # a comment on a named thing: "moved everything to Obsidian, Evernote got way too pricey"
    r"|\s*,\s*(?=[A-Z][\w'-]+ (?:got|was|is|became|went|has been|kept) \w)"
    # a second thing done, "I" dropped: "I don't play it anymore, cancelled my sub last week"
    r"|\s*,\s*(?:and\s+|then\s+)?(?=(?:just |also |even )?(?:cancell?ed|deleted|sold|quit|closed|bought|moved|switched|"
    r"started|joined|signed up|booked|got rid of) (?:my|the|a|an|our|it|everything|all|up|over|to|for)\b)"
    r"|\s*,\s*(?:and\s+)?(?=(?:my )?(?:last|first|final) (?:day|shift|week) (?:at|with|in)\b)"
    r"|\s*,\s*(?=(?:(?:just|please|so|and|now)\s+)?call me\b)"  # "changed my mind again, just call me Sasha"  # ", last day at X was"
    r"|\s*,\s*(?=(?:(?:the|that|this) )?(?:[a-z]+ ){1,2}(?:is|was|were|has|had|did|does)(?: not)? [a-z]+ing\b)"  # ", the night thing was not working"  # "spring is here, back on the bike for my commute"
    r"|\s*,\s*(?:(?:and|but|so)\s+)?(?=(?:he|she|they) (?:is|are|was|were|has|have|turned|just|also|still|"
    r"[a-z]{3,}(?<!ss)s)\b)"  # ", she is 5", ", he teaches history"
    r"|\s*,?\s+and\s+(?=(?:now |then |also |recently |later |still )?(?:became|work|worked|started|moved|live|"
    r"lived|got|love|hate|speak|study|teach|quit|joined|switched|adopted|decided)\b)"
    r"|\s*,\s*(?=(?:(?:should|shall|can|could|would|will|do|does|did|is|are|am)\s+(?:I|you|we|it|he|she|they|"
    r"there|that|this|my|your)|what|where|when|why|how|who|which|right|isn't|no)\b)",
)
_LEADING_FILLER = re.compile(
    r"^(?:(?:oh|ah|aha|well|so|also|and|but|plus|anyway|anyways|btw|by the way|actually|honestly|"
    r"seriously|basically|fun fact|fyi|ok|okay|yes|yeah|yep|yup|no(?! longer\b| more\b)|nope|nah|right|sorry|oops|whoops|"
    r"my bad|correction|update|quick update|heads up|note|wait|hmm+|um+|uh+|(?:hey|hi|hello|hiya|howdy|g'day|gday|heya|yo|oi|hallo|hola|salut|ciao)(?: there| all| everyone| again| mate)?|just so you know|"
    r"just to let you know|just fyi|for the record|for context|as i said|like i said(?: before)?|"
    r"as i mentioned(?: before)?|as i told you(?: before)?|(?:just )?(?:a )?(?:quick |friendly )?reminder(?: that)?|"
    r"change of plans?|(?:(?:I have |I )?changed my mind|on second thoughts?|scratch that|eh|meh)(?: again)?|(?:ok |okay )?final answer|plot twist|to be precise|more precisely|to be exact|to be (?:more )?specific|to clarify|in fact|now|then|lol|haha|turns out(?: that)?|"
    r"it turns out(?: that)?|ugh+|argh+|omg|guess what|good news|big news|(?:quick )?life update|"
    r"(?:please )?remember(?: that)?|note that|keep in mind(?: that)?|i should mention(?: that)?|"
    r"i forgot to mention(?: that)?|good news|big news|guess what|typo|you are right|you're right|"
    r"true|indeed|of course|this is important|important|just|and also|on top of that|in addition|especially|"
    r"in particular|particularly|specifically|more specifically|(?:mostly|mainly|usually|normally|typically)(?=,? i\b)|"
    r"these days|nowadays|currently|at the moment|right now|since last \w+)\b[\s,:!.-]*)+",
    re.IGNORECASE,
)
_INNER_FILLER = re.compile(
    r"\s*,?\s*\b(?:actually|by the way|btw|just so you know|as i said|like i said(?: before)?|"
    r"honestly|basically|literally|seriously|lol|haha|fyi)\b,?",
    re.IGNORECASE,
)
# "what I really love is X" says "I really love X" (a pseudo-cleft)
_CLEFT = re.compile(
    r"^what (i|we) ((?:really |truly |absolutely |actually )?(?:love|like|enjoy|hate|want|need|prefer|"
    r"miss|can't stand|cannot stand))(?: most| the most)? (?:is|are) ",
    re.IGNORECASE,
)
_TRAILING = re.compile(r"[\s,;:!.?-]+$")
_TRAILING_ADDITIVE = re.compile(r",?\s+(?:too|as well)$", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(k|m)?\b", re.IGNORECASE)
_NUMBER_WORD = re.compile(
    r"\b(" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")(?:-(one|two|three|four|five|six|"
    r"seven|eight|nine))?\b",
    re.IGNORECASE,
)
_SLUG = re.compile(r"[^a-z0-9+#.]+")


_STEP_BY_STEP = re.compile(r"\bstep by step\b", re.IGNORECASE)


def clean(text: str) -> str:
    """Unify quotes and dashes, drop emoji and symbols, collapse spaces ("step by step" is one word);
    cap the length."""
    text = _STEP_BY_STEP.sub("step-by-step", text.translate(_QUOTES)[:MAX_INPUT_CHARS])
    text = _JUNK.sub(" ", text)
    return "\n".join(_SPACES.sub(" ", line).strip() for line in text.splitlines()).strip()


def expand_contractions(text: str) -> str:
    text = _TYPED_WORD.sub(lambda m: _TYPED[m.group(1)], text)
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return _NEG_WORD.sub(lambda m: _NEG_FIX[m.group(1).lower()], text)


def sentences(text: str) -> list[tuple[str, str]]:
    """``[(sentence, terminator)]`` with terminator one of ``? ! . ; : \\n`` or ``""``."""
    out: list[tuple[str, str]] = []
    carry = ""
    for match in _SENTENCE.finditer(text):
        chunk = carry + match.group(0)
        if chunk.rstrip().endswith(".") and _ABBREV.search(chunk.rstrip()) and match.end() < len(text):
            carry = chunk
            continue
        carry = ""
        stripped = chunk.strip()
        body = stripped.rstrip(".!?;:\n").strip()
        term = stripped[len(body) :].strip()[:1]
        if body:
            out.append((body, "?" if "?" in stripped[len(body) :] else term))
        if len(out) >= MAX_SENTENCES:
            break
    return out


def clauses(sentence: str) -> list[str]:
    """Split a sentence where a new first-person statement (or a question) begins."""
    parts: list[str] = []
    start = 0
    for match in _CLAUSE_BREAK.finditer(sentence):
        left = sentence[start : match.start()]
        if re.search(r"\band\b", match.group()) and re.fullmatch(
            r"\s*(?:my|our)\s+[\w'-]+(?:\s+(?!(?:is|are|was|were|has|have)\b)[\w'-]+){0,2}\s*",
            left,
            re.IGNORECASE,
        ):
            continue  # "my husband and I live ..." stays one clause
        parts.append(left)
        start = match.end()
    parts.append(sentence[start:])
    # "I rent a flat in Croydon and the rent is £1,450": "the" amount after the user's own clause is theirs
    parts = [
        f"my {p.strip()[4:]}"
        if i
        and p.strip().startswith("the ")
        and re.search(r"[\d£$€]", p)
        and re.match(_SUBJECT_START, parts[i - 1].strip())
        else p
        for i, p in enumerate(parts)
    ]
    found = [c for p in parts if p.strip() for c in _lives_with(p.strip())]
    return [_them(c, found[i - 1]) if i else c for i, c in enumerate(found)]


# "come round on olives, I actually like them now": "them" after a stance verb is the plural the clause
# before named (its subject, or the object of a stance or preposition)
_THEM = re.compile(
    r"^(?P<head>I (?:\w+ ){0,3}?(?:love|like|enjoy|hate|dislike|adore|prefer|eat|miss)) them\b", re.IGNORECASE
)
_PLURAL = re.compile(
    r"(?:^(?:[a-z]+,? )??|,\s*)(?:the |my )?(?P<a>(?:(?-i:[A-Z])[a-z]+ )?[a-z]{3,}s) (?:are|were|have|had)\b|\b(?:on|about|off|of|to|love|like|hate|loves|likes|"
    r"hates|eat|eating|into)\s+(?:the |my |all )?(?P<b>[a-z]{3,}s)\b",
    re.IGNORECASE,
)


def _them(clause: str, before: str) -> str:
    if (m := _THEM.match(clause)) and (p := _PLURAL.search(before)):
        return f"{m.group('head')} {p.group('a') or p.group('b')}{clause[m.end() :]}"
    return clause


# "I live in Rosario with my two cats": where the user lives, and who they live with
_LIVES_WITH = re.compile(
    r"^(I (?:live|am living)) ((?:in|near|outside) [^,]{2,40}?) (with (?:my|our) .+)$", re.IGNORECASE
)


def _lives_with(clause: str) -> list[str]:
    m = _LIVES_WITH.match(clause)
    return [f"{m.group(1)} {m.group(2)}", f"{m.group(1)} {m.group(3)}"] if m else [clause]


def strip_fillers(clause: str) -> str:
    clause = _CLEFT.sub(r"\1 \2 ", _LEADING_FILLER.sub("", clause.strip()))
    clause = _INNER_FILLER.sub("", clause)
    clause = _TRAILING_ADDITIVE.sub("", _TRAILING.sub("", clause))  # "allergic to pollen too"
    return _TRAILING.sub("", clause).strip()


def tidy(text: str) -> str:
    """Collapse spaces and stray punctuation left over from cutting a clause."""
    text = re.sub(r"\s+([,.;:!?])", r"\1", _SPACES.sub(" ", text)).strip()
    return _TRAILING.sub("", text)


def numbers(text: str) -> list[float]:
    """Every number in ``text``: digits (``15,000``, ``2.5``, ``10k``) and number words (``twenty-one``)."""
    found: list[float] = []
    for m in _NUMBER.finditer(text):
        value = float(m.group(1).replace(",", ""))
        suffix = (m.group(2) or "").lower()
        found.append(value * (1000 if suffix == "k" else 1_000_000 if suffix == "m" else 1))
    for m in _NUMBER_WORD.finditer(text):
        value = float(NUMBER_WORDS[m.group(1).lower()])
        if m.group(2):
            value += NUMBER_WORDS[m.group(2).lower()]
        found.append(value)
    return found


def parse_number(text: str) -> float | None:
    found = numbers(text)
    return found[0] if found else None


_WORK_OUT = re.compile(r"\bwork(?:s|ing|ed)? out\b", re.IGNORECASE)


def workout(text: str) -> str:
    """ "working out" is a workout, not work: "prefers working out in the morning" -> "prefers workout in ..."."""
    return _WORK_OUT.sub("workout", text)


def slug(text: str) -> str:
    """Key segment: lowercase, words joined by ``_`` (``"eating-out"`` -> ``eating_out``)."""
    return _SLUG.sub("_", text.lower().replace("'", "")).strip("_.")[:60] or "x"


def singular(word: str) -> str:
    w = word.lower()
    if len(w) <= 3 or w.endswith(("ss", "us", "is", "ous")):
        return w
    if w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "zes", "oes")):
        return w[:-2]
    return w[:-1] if w.endswith("s") else w
