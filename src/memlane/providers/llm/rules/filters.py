"""What is never stored: questions, requests, tests, hypotheticals, secrets, greetings and chit-chat.

Each check looks at one clause (after fillers are stripped) and names the reason it is transient.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
_QUESTION_START = re.compile(
    r"^(?:what|where|when|why|how|who|whom|whose|which|is it|is there|are there|isn't|aren't|"
    r"(?:do|does|did|can|could|would|will|should|shall|may|might|must|am|is|are|was|were|have|has|had)"
    r"(?: not)? (?:you|i|we|it|they|he|she|there|that|this|my|your|the|a|an|u)\b|right$|no$|any idea|"
    r"anyone know|wonder if|i wonder|i was wondering|do you|did you|have you|could you|can you|would you)",
    _I,
)
_REQUEST = re.compile(
    r"^(?:(?:please|pls|plz)\b(?! (?:just )?call me\b| remember\b| note\b| keep in mind\b)|can you|could you|would you|will you|would you mind|i need you to|"
    r"i want you to|i would like you to|i would love (?:it )?if you|i need (?:some )?help|i would like "
    r"(?:a|an|some|the(?! (?:answers|replies|responses)\b)|to know|to ask|to see)\b|help me|let us\b|let's\b|"
    r"(?:write|tell|give|show|make|create|explain|list|recommend|suggest|translate|summari[sz]e|find|"
    r"draft|generate|compose|fix|check|describe|define|rewrite|edit|proofread|send|search|look up|"
    r"calculate|compare|plan|book|remind me|ignore|forget|delete|remove|continue|go on|try again|"
    r"do it|now one|one more|another one|again|say|read|convert|analy[sz]e|review|outline|brainstorm|"
    r"teach me|give me|show me|tell me|help)\b)",
    _I,
)
_TEST = re.compile(
    r"^(?:this is (?:just |only )?a test|(?:just |only )?testing\b|tests?\b|test\s*\d|asdf|qwerty|"
    r"lorem ipsum|hello world|ping\b|ignore (?:that|this|me|it)\b)"
    r"|\bi am (?:just |only )?testing\b|\bjust (?:checking|testing)\b|\bchecking (?:if|whether) "
    r"(?:it|this|you|the \w+) (?:works|work|is working)",
    _I,
)
_HYPOTHETICAL = re.compile(
    r"^(?:if|what if|suppose|supposing|imagine|let us say|let's say|say|pretend|hypothetically|"
    r"assuming|in theory|in a perfect world|maybe|perhaps|probably|someday i might)\b"
    r"|\b(?:i|we) (?:would(?! rather| prefer| like (?:my |your |the )?(?:answers|replies|responses)\b)|might|may|could|should|wish|wonder|guess|suppose)\b"
    r"|\b(?:i|we) (?:am|are) (?:thinking (?:about|of)|considering|wondering|not sure|unsure|torn)\b"
    r"|\b(?:i|we) (?:do not know|have no idea|cannot decide)\b",
    _I,
)
_SECRET = re.compile(
    r"\b(?:password(?! managers?\b)|passcode|pin(?: code| number)?|credit card (?:number|details)|card number|cvv|social security|ssn|"
    r"passport number|bank account number|iban|api key|secret key|private key|2fa|security code)\b",
    _I,
)
_GREETING = re.compile(
    r"^(?:(?:hi|hello|hey|heya|hiya|yo|sup|howdy|g'day|gday|hola|ciao|salut|good (?:morning|afternoon|evening|night|day)|"
    r"morning|evening|thanks?(?: you)?(?: (?:so|very) much| a lot| again)?(?: for [\w\s']+)?|thx|ty|"
    r"cheers|bye|goodbye|see (?:you|ya)(?: later| soon)?|later|ok(?:ay)?|k|cool|nice|great|awesome|"
    r"perfect|sure|yes|yeah|yep|no|nope|lol|haha|hmm+|got it|sounds good|you are right|"
    r"you're right|makes sense|fair enough|good|wow|amazing|interesting|oh|ah|alright|all right|"
    r"no worries|np|welcome|good job|well done|love it|that is great|that's great|exactly|indeed|"
    r"true|right|i see|i agree|agreed|same|me too|of course|definitely|absolutely|not really|maybe|"
    r"how are you|what's up|whats up|(?:gotta|got to|have to|need to|i have to|i need to|i've got to) "
    r"(?:go|run|dash|head off|head out|bounce|fly)(?: now)?|ciao|ttyl|talk (?:to you )?(?:later|soon)|catch you later)"
    r"[\s,!.?:)(-]*)+$",
    _I,
)


# "when you give me recipes, use metric units": a condition, then what to do, is a directive, not a question
_WHEN_YOU_DO = re.compile(r"^(?:when|whenever) you\b[^,?]*,\s*(?:please\s+)?[a-z]+\b", _I)


# "I actually like cilantro now??": a change told with surprise is a statement, whatever its punctuation
_SURPRISED = re.compile(
    r"^I (?!(?:should|shall|can|could|would|will|may|might|must|do|did|need|want|wonder|"
    r"have to|am (?:allowed|supposed|meant)|was)\b)(?:[a-z']+ ){0,4}?(?:now|actually|apparently|"
    r"officially)\b",
    _I,
)


def is_question(clause: str, ends_with_question_mark: bool) -> bool:
    if not ends_with_question_mark and _WHEN_YOU_DO.match(clause):
        return False
    if _SURPRISED.match(clause) and not _QUESTION_START.match(clause):
        return False
    return ends_with_question_mark or bool(_QUESTION_START.match(clause))


def transient_kind(clause: str) -> str | None:
    """``"test"``, ``"request"``, ``"hypothetical"``, ``"sensitive"``, ``"greeting"`` or ``None``."""
    if _TEST.search(clause):
        return "test"
    if _GREETING.match(clause):
        return "greeting"
    if _REQUEST.match(clause):
        return "request"
    if _HYPOTHETICAL.search(clause):
        return "hypothetical"
    if _SECRET.search(clause):
        return "sensitive"
    return None


def starts_with_subject(clause: str) -> bool:
    return bool(re.match(r"(?:i|my|we|our)\b", clause, _I))


REASONS = {
    "question": "a question, not a statement of fact",
    "request": "a request to the assistant",
    "test": "a test message",
    "hypothetical": "hypothetical or undecided, not a fact",
    "sensitive": "a secret or credential, never stored",
    "greeting": "greeting, thanks or chit-chat",
}
