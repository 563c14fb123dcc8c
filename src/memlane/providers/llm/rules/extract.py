"""Extraction: the last user turn -> up to 5 candidate memories, or a reason why there are none.

Pipeline per message: clean -> expand contractions -> sentences -> clauses -> drop questions, requests,
tests, hypotheticals and chit-chat -> find the subject -> first matching rule -> render a candidate.
Earlier user turns and stored summaries only resolve names (``"Luna turned 4"``) and corrections.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from memlane.model.candidate import Candidate, ChatMessage, Extraction
from memlane.providers.llm.rules import correction, filters, intro, relocation, specification, subject, table
from memlane.providers.llm.rules.answer_aspects import STYLE_SLOT
from memlane.providers.llm.rules.build import apply, candidate, subject_key
from memlane.providers.llm.rules.chronotype import chronotype
from memlane.providers.llm.rules.context import Registry, build
from memlane.providers.llm.rules.facts import USER, Clause, Fact, Subject
from memlane.providers.llm.rules.helpers import MONEY, strip_past_time
from memlane.providers.llm.rules.lexicon import NOT_NAMES
from memlane.providers.llm.rules.subject import pet_or_relation
from memlane.providers.llm.rules.text import clauses, clean, expand_contractions, sentences, strip_fillers

MAX_CANDIDATES = 5
_LOWER_I = re.compile(r"(?<![\w.'-])i(?![\w.'-])")
_CAREER = re.compile(
    r"\bI (?:have |just |recently |finally )?(?:changed|switched|swapped|made a) (?:my )?careers?(?: change)?"
    r"\b[\s,:;.!-]*(?:(?:and|so) )?(?:now )?",
    re.IGNORECASE,
)
_IMPORTANT = re.compile(
    r"\b(?:(?:this is important|please remember|remember this|never forget|do not forget|"
    r"keep in mind|make sure you remember)\b|important\s*[:!-])",  # (no word boundary after "important:")
    re.IGNORECASE,
)
_AUX_START = re.compile(
    r"(?:is|are|am|was|were|do|does|did|can|could|should|would|will|shall|may|what|where|when|why|how|who|which|"
    r"any)\b",
    re.IGNORECASE,
)
_APPOSITIVE = re.compile(r"^(I am [A-Z][\w'-]+), (an? [\w -]+)$")  # "I'm Ana, a nurse from Leeds"
_NO_FACT = "no durable first-person fact recognised"
_IT_IS = re.compile(r"^.*\bmy ((?:[a-z]+ )?[a-z]+), it (is|was|will be|has been)\b", re.IGNORECASE)
# "rent went up, I'm paying $1,550 now" -> "my rent is $1,550": the amount belongs to what changed
_CHANGED_TO = re.compile(
    rf"^(?:(?:my|our|the) )?(?P<thing>[a-z]+(?: [a-z]+)?) (?:went up|went down|rose|increased|dropped|fell|"
    rf"got (?:raised|hiked|cut|bumped|lowered)|was (?:raised|hiked|cut|bumped|lowered)|changed)(?: again)?[,;]? "
    rf"(?:and |so )?(?:I am|we are|it is|now it is|I now pay|we now pay|I pay|we pay)(?: now)?(?: paying| at)? "
    rf"(?P<amount>{MONEY.pattern})(?: a month| per month| a year| now)*$",
    re.IGNORECASE,
)
# "Before I turn 40 I want to climb Kilimanjaro" -> "I want to climb Kilimanjaro before I turn 40"
# "got a leopard gecko, named him Biscuit": the name given in the next breath is the one just got
_NAMED_AFTER = re.compile(
    r"\b(?P<what>(?:a|an) (?:(?!and\b)[\w-]+ ){0,2}(?!and\b)[\w-]+),? (?:and )?(?:named|called|we named|we called) "
    r"(?:him|her|it|them) (?P<name>(?-i:[A-Z])[\w'-]+)",
    re.IGNORECASE,
)
# "got a guinea pig!! her name is Bao": a name told in the next sentence names what the last one introduced
_NAME_NEXT = re.compile(
    r"\s*[.!]+\s+(?=(?:her|his|its|their) name(?: is|'s)\b|(?:she|he|it|they) (?:is|are|'s|'re) "
    r"(?:called|named)\b)",
    re.IGNORECASE,
)
_CALLED_PRONOUN = re.compile(
    r",\s*(?:she|he|it|they) (?:is|are) (?:called|named) (?=(?-i:[A-Z]))", re.IGNORECASE
)
_STARTED_YEAR = re.compile(
    r"\s+(?:just |recently )?(?:started|moved up (?:in)?to|went up (?:in)?to) (?=(?:Year|Grade|year|grade) \d{1,2}\b|"
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth) grade\b)"
)
# "her parents live in Chennai but we're in Bristol": where the household is, with no time said, is where it lives
_WE_ARE_IN = re.compile(
    r"^we (?:are|'re) (?:still |now |both )?(?:based |living |settled )?in (?P<place>(?-i:[A-Z])[\w'-]+"
    r"(?: (?-i:[A-Z])[\w'-]+)?)(?: now| these days)?$",
    re.IGNORECASE,
)
_LEADING_WHEN = re.compile(
    r"^(?P<when>(?:before|by the time|once|after) I (?:turn|hit|reach|retire|graduate|finish|am|have)\b.*?)"
    r",? (?P<main>I (?:want|would like|would love|plan|hope|intend|aim|am going|will|have to|need)\b.+)$",
    re.IGNORECASE,
)
# "Since the baby arrived I can't stand horror films anymore", "after a month with my new iPhone I prefer iOS":
# what led to it, then the statement (no comma between); a past "I was/had/did" is still the subordinate clause
_LEADING_CAUSE = re.compile(
    r"^(?:since|ever since|after|now that|because|once)\b[^,]{3,60}? (?=I (?!(?:was|were|had|did|got|went|am "
    r"(?:there|here))\b))",
    re.IGNORECASE,
)
_SOFT_START = re.compile(r"^(?:(?:ok(?:ay)?|so|well|honestly|and|but|yeah|update)\W+)+", re.IGNORECASE)
# "I have to admit I prefer iOS now": the hedge before the statement says nothing of its own
_HEDGE = re.compile(
    r"^I (?:have to|must|gotta|got to|will|'ll)? ?(?:admit|say|confess)(?: that)?,? (?=I\b)", re.IGNORECASE
)
# "had my birthday on friday, 53 now" -> "I turned 53": the age said after the birthday is the new age
_BIRTHDAY_AGE = re.compile(
    r"^(?P<who>(?:\S+ ){0,3}?)(?:just |finally |recently )?(?:had|celebrated) (?P<pos>my|his|her|their) "
    r"(?:birthday|bday|b-day)\b[^,;]*[,;] (?:and |so )?(?:(?:I am|he is|she is|they are|I turned|turned) )?(?:now )?"
    r"(?P<n>\d{1,3})(?: now| today| already)?(?P<rest>(?:[,;.!]|$).*)$",
    re.IGNORECASE,
)
# "on Monday I started at ...", "after four years I finally quit ...": a leading time is not the subject
_LEADING_TIME = re.compile(
    r"(?:^|(?<=, )|(?<=, and )|(?<=, but )|(?<=, then )|(?<= and ))"
    r"(?:(?:on|after|over|from|as of|starting) [\w' -]{1,25}?|(?:this|last|next) (?:week|weekend|month|year|morning|night|"
    r"summer|winter|spring|autumn|[a-z]+day)|earlier|yesterday|today),? (?=I )",
    re.IGNORECASE,
)
# "a small climate startup called Verdana Labs" -> "Verdana Labs": an organisation named after its kind
_CALLED = re.compile(
    r"\b(?:an? |this )(?:[\w-]+ ){0,4}?(?:company|startup|start-up|firm|agency|studio|consultancy|"
    r"lab|charity|nonprofit|non-profit|school|bank|shop|restaurant|cafe|bakery|practice|clinic) "
    r"(?:called|named) (?=[A-Z])"
)
# "handed in my notice at X" is leaving the job at X
_NOTICE = re.compile(
    r"\b(?:handed|handing|put|gave|given) in my (?:notice|resignation) (?:at|to)\b", re.IGNORECASE
)
# "new favourite band: Fontaines D.C." -> "my new favourite band is Fontaines D.C."
_FAVOURITE_COLON = re.compile(
    r"(?:^|(?<=[.!?] ))(?:my )?(?P<what>(?:new |current |all-time )?(?:favou?rite|fave) [\w' -]{2,30}?)\s*:\s*(?=\w)",
    re.IGNORECASE,
)
# a quotation of three words or more: "a story that begins with: 'I live alone in a lighthouse ...'"
_QUOTED = re.compile(
    r"(?:^|(?<=[\s:(]))(?:'|\"|\u201c|\u2018)(?P<q>[^'\"\u201c\u201d\u2018\u2019]*?\s[^'\"\u201c\u201d\u2018\u2019]*?\s"
    r"[^'\"\u201c\u201d\u2018\u2019]*?)(?:'|\"|\u201d|\u2019)(?=[\s.,!?;:)]|$)"
)
_QUOTE_CUE = re.compile(
    r"\b(?:write|story|poem|essay|email|letter|message|caption|text|translate|begins?|starts?|ends?|"
    r"says?|said|told|reply|respond|line|lyrics?|quote|sentence|phrase)\b",
    re.IGNORECASE,
)


def _unquoted(m: re.Match[str]) -> str:
    """A quotation after words that ask for writing or report speech is dropped; "my motto is '...'" stays."""
    return " " if _QUOTE_CUE.search(m.string[max(0, m.start() - 40) : m.start()]) else m.group(0)


_BASED = re.compile(r"\bI am (?P<place>(?-i:[A-Z])[\w]+(?: (?-i:[A-Z])\w+)?)-based\b", re.IGNORECASE)
_HOME_IS = re.compile(
    r"\bhome (?:for (?:me|us) )?is (?:in )?(?=(?-i:[A-Z]))", re.IGNORECASE
)  # "home for me is Cork"
# "Goal for this year: get my motorcycle licence" -> "my goal for this year is to get my motorcycle licence"
_GOAL_COLON = re.compile(
    r"(?:^|(?<=[.!?] ))(?:my )?(?P<what>(?:main |big |one |new |new year'?s? )?(?:goal|resolution|aim|target)"
    r"(?: for [\w' -]{2,20}?)?)\s*:\s*(?:to )?(?!(?:I|we|my)\b)(?=[a-z])",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(
    r"\b(?:the stuff|that stuff|this stuff|the thing|that thing|it|that|this|them|those)\s*$", re.IGNORECASE
)


_ABOUT_ME = re.compile(
    r"\b(?:(?:quick |a )?(?:little |bit |few things )?about me|(?:quick |short |brief )?intro)\s*[:-]\s*"
    r"(?P<own>(?:I|my)\b)?",
    re.I,
)


# "my son oskar is 9": a name typed in lower case after the relation or pet it names, before a verb
_LOWER_NAME = re.compile(
    r"\b(?P<head>(?:my|our) (?:[a-z]+ )?(?P<noun>[a-z]+),? )(?P<name>[a-z][a-z'-]{1,20})"
    r"(?=,? (?:is|was|has|had|turned|turns|just|lives|works|got|started|loves|hates|likes|and|who)\b|'s\b)"
)


def _capitalise_names(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        name = m.group("name")
        if pet_or_relation(m.group("noun")) is None or name in NOT_NAMES or name in _NOT_A_NAME:
            return m.group(0)
        return m.group("head") + name.capitalize()

    return _LOWER_NAME.sub(repl, text)


_NOT_A_NAME = frozenset(
    {
        "is",
        "was",
        "has",
        "had",
        "just",
        "and",
        "who",
        "also",
        "still",
        "really",
        "now",
        "never",
        "always",
        "finally",
        "recently",
        "already",
        "too",
    }
)


def _known_name_first(sentence: str, registry: Registry) -> str:
    """``"oskar turned 10"`` after ``"my son oskar is 9"``: a known name opening a sentence gets its capital."""
    first = sentence.split(" ", 1)[0]
    if first.islower() and first.lower() in registry.known:
        return first.capitalize() + sentence[len(first) :]
    return sentence


# "decided: I'm taking the PhD" / "I'm taking the PhD, final decision": a decision told around a clause
_DECISION_COLON = re.compile(
    r"\b(?:(?:I have |I )?(?:decided|made (?:up )?my (?:decision|mind))|(?:final |my )?decision(?: made)?)"
    r"\s*[:-]\s*(?=(?:I|we) )",
    re.IGNORECASE,
)
_DECISION_AFTER = re.compile(
    r"^(?P<clause>(?:I|we) [^.!?]+?),? (?:final decision|decision made|that is decided)(?=[.!]|$)",
    re.IGNORECASE | re.MULTILINE,
)


# a condition on the assistant's answers, then a style the user prefers: a directive about answers
_WHEN_YOU_PREFER = re.compile(
    rf"(?P<when>\b(?:when|whenever) you [\w' ]+?),\s*I (?:prefer|like|want|need) (?={STYLE_SLOT}(?:$|[.!,]))",
    re.IGNORECASE,
)


def _prepare(text: str) -> str:
    text = _QUOTED.sub(_unquoted, text)  # words for the assistant to write, or someone else's: not the user's
    # "About me: 29, ..." -> "I am 29, ..."; "quick intro: I'm Haruto, ..." keeps its own subject
    text = _ABOUT_ME.sub(
        lambda m: m.group("own") or "I am ", _LOWER_I.sub("I", expand_contractions(clean(text)))
    )
    text = _DECISION_AFTER.sub(r"I decided \g<clause>", _DECISION_COLON.sub("I decided ", text))
    text = _BASED.sub(r"I am based in \g<place>", _HOME_IS.sub("I live in ", text))  # "I'm Cork-based"
    text = _GOAL_COLON.sub(lambda m: f"my {m.group('what').lower()} is to ", text)
    text = _WHEN_YOU_PREFER.sub(r"\g<when>, use ", text)  # "when you explain things, I prefer numbered steps"
    text = _CALLED_PRONOUN.sub(" called ", _NAME_NEXT.sub(", ", text))
    text = _STARTED_YEAR.sub(" is in ", text)  # "my son just started Year 3": he is in Year 3
    return _capitalise_names(_FAVOURITE_COLON.sub(lambda m: f"my {m.group('what')} is ", text))


def _register(registry: Registry, fact: Fact | None, who: Subject) -> None:
    """Who a clause was about, so a later ``she`` or ``Ava`` in the same message is that someone."""
    if who.kind in ("pet", "relation") and not who.name:
        registry.last = who  # "my wife can't handle spicy food ... she is allergic to shellfish"
    elif who.kind in ("pet", "relation") and who.name:
        registry.known[who.name.lower()] = who
        registry.last = who
    elif fact and fact.key and fact.key.startswith("profile:pet:") and len(fact.entities) == 1:
        registry.add(fact.value, fact.entities[0])


def facts_in(
    text: str,
    registry: Registry,
    statements: list[tuple[str, Fact | None, Subject]] | None = None,
) -> tuple[list[tuple[Fact, Subject]], list[str]]:
    """Facts stated in one message and the reasons the other clauses were skipped. ``statements`` (when
    given) receives every clause that is a statement, with the fact read from it or None."""
    text = _prepare(text)
    career = bool(_CAREER.search(text))
    text = _CAREER.sub("", text)
    found: list[tuple[Fact, Subject]] = []
    reasons: list[str] = []
    begun = 0
    for sentence, terminator in sentences(text):
        found[begun:], begun = _without_reasons(found[begun:]), len(found)
        sentence = _known_name_first(sentence, registry)
        sentence = _CHANGED_TO.sub(r"my \g<thing> is \g<amount>", sentence)
        sentence = _LEADING_TIME.sub("", sentence)
        if _LEADING_CAUSE.match(lead := _SOFT_START.sub("", sentence)):
            sentence = _LEADING_CAUSE.sub("", lead)
        sentence = _HEDGE.sub("", sentence)
        sentence = _NAMED_AFTER.sub(r"\g<what> named \g<name>", sentence)
        sentence = _BIRTHDAY_AGE.sub(
            lambda m: f"{m.group('who') or 'I '}turned {m.group('n')}{m.group('rest')}", sentence
        )
        sentence = _LEADING_WHEN.sub(
            lambda m: f"{m.group('main')} {m.group('when')[0].lower()}{m.group('when')[1:]}", sentence
        )
        parts = [p for c in clauses(_APPOSITIVE.sub(r"\1, I am \2", sentence)) for p in intro.expand(c)]
        if terminator == "?" and len(parts) == 1 and ", " in sentence:
            # "I'm vegan, is honey ok?": a statement, then the question
            head, tail = sentence.rsplit(", ", 1)
            if filters.starts_with_subject(head) and _AUX_START.match(tail):
                parts = [head, tail]
        ended = False  # a clause before this one in the sentence ended something
        for index, raw in enumerate(parts):
            part = _IT_IS.sub(
                r"my \1 \2", strip_fillers(raw)
            )  # "... my rent, it is 1,050" -> "my rent is 1,050"
            if not part:
                reasons.append("greeting")
                continue
            last_of_question = terminator == "?" and (
                index == len(parts) - 1 or not filters.starts_with_subject(part)
            )
            if filters.is_question(part, last_of_question):
                reasons.append("question")
                continue
            kind = filters.transient_kind(part)
            as_written = table.match_text(part, raw_only=True) if kind in (None, "request") else None
            if kind and as_written is None:
                reasons.append(kind)
                continue
            part = _WE_ARE_IN.sub(r"we live in \g<place>", part)  # before a time tail ("this week") is cut
            part = _NOTICE.sub("quit my job at", _CALLED.sub("", strip_past_time(part)))
            parsed = subject.parse(part, registry.known, registry.last)
            if parsed is None and as_written is None:
                reasons.append("no_fact")
                if statements is not None:
                    statements.append((part, None, USER))
                continue
            clause = (
                Clause(parsed.text, parsed.subject, career, replacing=ended and parsed.text.startswith("I "))
                if parsed
                else Clause(part)
            )
            fact = as_written or apply(clause)  # a row that reads the clause as written knows its subject
            if fact is not None and _PLACEHOLDER.search(fact.text):  # "I hate the stuff": says nothing alone
                fact = None
            if (fact is None or "statement" in fact.tags) and ", " in clause.text:
                # "I am a radiographer at St Mary's, mostly CT scans": a rule reads it before the elaboration;
                # "I switched to a Pixel 8, loving it": what is said before a reaction stands alone
                first = apply(Clause(clause.text.split(", ")[0], clause.subject, clause.career_change))
                fact = (
                    first if first is not None and (fact is None or "statement" not in first.tags) else fact
                )
                fact = None if fact is not None and _PLACEHOLDER.search(fact.text) else fact
            who = (fact and fact.subject) or (
                USER if fact is not None and fact is as_written else clause.subject
            )
            if statements is not None:
                statements.append((part, fact, who))
            _register(registry, fact, who)
            ended = ended or (fact is not None and bool(_ENDS.search(part)))
            if fact is None:
                reasons.append("no_fact")
                continue
            if len(found) > begun and (named := _named(found[-1][0])) and _IT_OBJECT.search(fact.text):
                fact.text = _IT_OBJECT.sub(
                    named, fact.text, count=1
                )  # "... is Wingspan, we play it every Friday"
            found.append((fact, who))
    found[begun:] = _without_reasons(found[begun:])
    return found, reasons


def _named(fact: Fact) -> str | None:
    """The one thing a fact names, which an "it" in the next clause stands for: its one entity, or a favourite."""
    if len(fact.entities) == 1:
        return fact.entities[0]
    return fact.value if (fact.key or "").startswith("pref:favourite") and fact.value else None


_IT_OBJECT = re.compile(r"(?<=[a-z] )\bit\b(?=[ .,!]|$)")  # "it" after a verb: what the clause before named


_NEGATIVE = re.compile(r"\b(?:not|never|no longer)\b", re.IGNORECASE)
_ENDS = re.compile(
    r"\b(?:not|never|no longer|anymore|any more|quit|stopped|gave up|sold|left)\b", re.IGNORECASE
)


def _without_reasons(found: list[tuple[Fact, Subject]]) -> list[tuple[Fact, Subject]]:
    """The facts of one sentence without a negative loose statement beside a preference on answers it gives the
    reason of ("keep your answers brief, I don't need long explanations")."""
    if not any(f.key and f.key.startswith("pref:answer") for f, _ in found):
        return found
    return [
        (f, who) for f, who in found if not ("statement" in f.tags and not f.key and _NEGATIVE.search(f.text))
    ]


def _reason(reasons: Sequence[str], text: str) -> str:
    if not text.strip():
        return "empty message"
    letters = [ch for ch in text if ch.isalpha()]
    if letters and sum(ch.isascii() for ch in letters) / len(letters) < 0.6:
        return "not English: the offline rules only read English statements"
    if not letters:
        return "no words to extract from"
    for kind in ("sensitive", "test", "request", "question", "hypothetical", "greeting"):
        if kind in reasons:
            return filters.REASONS[kind]
    return _NO_FACT


_IT = re.compile(
    r"^(?:and |but |so |now )?(?:it is|it's|that is|that's|it has gone up to|it went up to)\b", re.IGNORECASE
)


def _updates(
    statements: Sequence[tuple[str, Fact | None, Subject]],
    existing: Sequence[str],
    registry: Registry,
    corrects: bool,
) -> list[tuple[Fact | None, Candidate]]:
    """Stored memories the statements give a new value (``updates.py``), with the fact each replaces.
    A clause whose rule found a keyed fact is left to that fact."""
    if not existing:
        return []
    # imported here: updates reads values with the judge's word lists, whose modules import this one
    from memlane.providers.llm.rules import updates

    out: list[tuple[Fact | None, Candidate]] = []
    before = ""
    for part, fact, who in statements:
        if fact is not None and subject_key(fact.key, who):
            before = part
            continue
        summary = updates.propose(part, existing, registry.known)
        if summary is None and before and _IT.match(part):  # "landlord put the rent up. it's £1,520 now": the
            summary = updates.propose(
                f"{before}, {part}", existing, registry.known
            )  # rent, by the clause before
        before = part
        if summary is not None:
            out.append((fact, updates.candidate(summary, corrects)))
    return out


def _jobs_left(out: Sequence[Candidate], existing: Sequence[str]) -> list[Candidate]:
    """A move to another town: the stored jobs told with the old town, told with the move (``relocation.py``)."""
    moves = [c for c in out if c.key == "profile:residence:city" and c.entities]
    if not moves:
        return []
    from memlane.providers.llm.rules import updates  # imported here: see _updates

    return [
        updates.candidate(s, correction=False) for s in relocation.job_moved(existing, moves[0].entities[0])
    ]


_GOT_RID = re.compile(
    r"^I (?:just |finally |recently )?(?P<verb>got rid of|sold|traded in|gave away|ditched|returned|"
    r"gave back|handed back|scrapped) (?P<what>(?:the|my|our) [\w' -]+)$",
    re.IGNORECASE,
)
_NOW = re.compile(r"\bnow\b", re.IGNORECASE)


def _disposal_joined(before: Fact, fact: Fact) -> Fact | None:
    """A thing disposed of, then what the user has now, is one change: "got rid of the yaris, so I'm driving a
    Tesla now" -> "I am driving a Tesla now, having got rid of the yaris" (the judge retires what was given up;
    the disposal is not kept as a memory of its own)."""
    gone = _GOT_RID.match(before.text)
    if gone is None or not _NOW.search(fact.text) or "instead of" in fact.text:
        return None
    verb = gone.group("verb").lower().replace("gave", "given")
    return replace(fact, text=f"{fact.text.rstrip('.')}, having {verb} {gone.group('what')}")


def _chronotype_joined(before: Fact, fact: Fact) -> Fact | None:
    """Two clauses that say when the user is at their best are one fact: "I'm a night owl, I do my best work
    after 10pm" -> "I am a night owl and I do my best work after 10pm"."""
    pole = chronotype(fact.text)
    return (
        replace(before, text=f"{before.text} and {fact.text}")
        if pole and pole == chronotype(before.text)
        else None
    )


def _joined(found: list[tuple[Fact, Subject]]) -> list[tuple[Fact, Subject]]:
    """The user's facts of one message that say one thing in two clauses, as one fact."""
    out: list[tuple[Fact, Subject]] = []
    for fact, who in found:
        if (
            out
            and who.kind == "user" == out[-1][1].kind
            and fact.text.startswith("I ")
            and (one := _chronotype_joined(out[-1][0], fact) or _disposal_joined(out[-1][0], fact))
            is not None
        ):
            out[-1] = (one, who)
            continue
        out.append((fact, who))
    return out


def extract(messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users:
        return Extraction(should_create=False, reason="no user message to extract from")
    last = messages[users[-1]].content or ""
    earlier = [messages[i].content or "" for i in users[:-1]]
    registry = build([*existing, *(_prepare(t) for t in earlier)])
    statements: list[tuple[str, Fact | None, Subject]] = []
    found, reasons = facts_in(last, registry, statements)
    found = _joined(found)
    corrects = correction.is_correction(last)
    updated = _updates(statements, existing, registry, corrects)
    if updated:  # an unkeyed fact of a clause that updates a stored memory is that update, said loosely
        found = [(fact, who) for fact, who in found if not any(fact is f for f, _ in updated)]
    elif not found and earlier and corrects:
        found = correction.rebuild(last, earlier, lambda turn: facts_in(turn, build(existing))[0])
    # "to be specific it's Brazilian jiu-jitsu": the earlier general fact, made specific
    found = [
        *specification.specify(last, earlier, lambda turn: facts_in(turn, build(existing))[0], existing),
        *found,
    ]
    important = bool(_IMPORTANT.search(last))
    tags = ["correction"] if corrects else []
    out: list[Candidate] = [cand for _, cand in updated]
    seen: dict[str, int | None] = {c.key or c.summary.lower(): None for c in out}
    for fact, who in found:
        cand = candidate(fact, who, important, tags)
        marker = cand.key or cand.summary.lower()
        if marker in seen:
            # one slot said twice in a message: the later clause is the user's latest word ("I'm not a
            # pharmacist anymore, I retrained as a data analyst")
            if (at := seen[marker]) is not None and cand.key:
                out[at] = cand
            continue
        seen[marker] = len(out)
        out.append(cand)
        if len(out) == MAX_CANDIDATES:
            break
    out += _jobs_left(out, existing)
    if not out:
        return Extraction(should_create=False, reason=_reason(reasons, last))
    kinds = ", ".join(sorted({c.category for c in out}))
    return Extraction(
        should_create=True, candidates=out, reason=f"{len(out)} fact(s) stated by the user ({kinds})"
    )
