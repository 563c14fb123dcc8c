"""Every prompt memlane sends to an LLM, in one place, each with a version.

Change a prompt's wording -> bump its ``version``; ``PROMPT_VERSION`` (all versions joined) is what
formation records next to a decision so an output can be traced to the prompt that produced it.
Templates use ``str.format`` fields; literal braces are doubled.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Prompt:
    version: str
    system: str
    user: str  # str.format template

    def render(self, **values: str) -> tuple[str, str]:
        """Return ``(system, user)`` with ``values`` filled into both templates."""
        return self.system.format(**values), self.user.format(**values)


# Extraction: self-contained third-person facts (writing constraints), several per turn, with type and key.
EXTRACT_V2 = Prompt(
    version="extract.v2",
    system="""\
You are the memory archivist of a personal assistant. Extract new, permanent facts about the user \
that are worth remembering in future conversations: identity, life, work, relationships, health, \
preferences, goals and plans, and attributes of people, pets and things close to the user.

Rules:
1. Extract only what the user states. Assistant messages are context (to resolve "yes", "that one"); \
never record an assistant suggestion unless the user adopts it.
2. Ignore transient information: greetings, small talk, requests and instructions to the assistant \
("Write a poem"), questions, and tests ("I am testing this").
3. Ignore facts already stated in Existing memories. A correction or update of a known fact IS new: \
state the current value.
4. Write each memory as a complete, self-contained, third-person sentence that starts with "User" \
(e.g. "User is a software engineer who uses Bun."). Use no pronouns: repeat the name instead, and \
never refer to the assistant. Neutral tone, 1-2 sentences, at most {max_chars} characters. Turn \
relative times into dates when message dates are given.
5. Attribute a fact about another person to that person through the user: "User's sister lives in \
Paris.", not "User lives in Paris."
6. One fact per candidate, at most 5 candidates.
7. type: "semantic" for durable facts, preferences and corrections of facts (e.g. "User's dog Luna \
is 4 years old." after "Luna turned 4"); "episodic" for decisions, events and outcomes tied to a \
time (e.g. "User decided to switch from Bun to Node."). Write an episodic memory in the past tense, \
about what was discussed, decided or done; leave stable facts out of it unless they changed.
8. category: one of {categories}.
9. importance: 1 (trivia) to 5 (core identity, health, safety, or something the user asked to keep).
10. key: only for a slot that holds one value at a time, as a lowercase colon path such as \
profile:residence:city, profile:employer, profile:pet:<name>:age, profile:partner:name; else null.
11. entities: names of people, pets, places and organisations in the fact; tags: up to 3 lowercase \
topic words; pinned: true only when the user explicitly asks to always remember it.
12. If nothing new and permanent was said, return should_create false and no candidates.
Reply with a single JSON object only.""",
    user="""\
Existing memories:
{existing}

Conversation (oldest first):
{conversation}""",
)

# Same fact or not, asked of a small LLM when the similarity is in the borderline band.
SAME_FACT_V1 = Prompt(
    version="same_fact.v1",
    system="""\
You compare two memory statements about the same user. Answer same_fact true only if both state \
the same fact about the same subject, so that one can replace the other (a newer value of the same \
fact, such as a changed age or city, counts as the same fact). Answer false if they are about \
different people, pets, things or aspects, or if one only mentions a related topic. Differing \
numbers or dates about the same attribute still mean the same fact. Reply with JSON only: \
{{"same_fact": true or false, "reason": "<at most 12 words>"}}.""",
    user="""\
Category: {category}
Existing: {existing}
Candidate: {candidate}
Numbers and dates - existing: {existing_numbers}; candidate: {candidate_numbers}""",
)

# Conflict classification: contradiction, refinement, redundancy or new, and what each means.
CONFLICT_V1 = Prompt(
    version="conflict.v1",
    system="""\
Compare a New fact about the user with an Existing memory and classify their relation:
- "contradiction": the new fact directly contradicts the existing one; the new replaces the old \
(e.g. "User lives in NY" vs "User moved to LA").
- "refinement": the new fact is a more specific or more detailed version of the existing one \
(e.g. "User likes JS" vs "User likes TypeScript").
- "redundancy": the new fact says the same thing as the existing one; nothing new.
- "new": the facts are unrelated or can both be true independently.
Reply with JSON only: {{"relation": "...", "reason": "<at most 12 words>"}}.""",
    user="""\
Existing: {existing}
New: {candidate}""",
)

# All stored neighbours of one candidate judged in one call, each with its reasoning before the verdict.
JUDGE_V1 = Prompt(
    version="judge.v1",
    system="""\
A memory store holds facts about a user. A New fact arrives; judge it against each numbered Stored \
memory. For each, first write your reasoning (who or what each is about, which attribute, which \
value), then the relation:
- "contradiction": same subject and attribute, a different value or the opposite stance; the new \
fact replaces the stored one (a moved city, a changed age or dose, a new employer, quitting a habit, \
a diet that rules out a food the stored memory says the user eats).
- "refinement": the new fact is a more specific version of the stored one and replaces it \
("works in finance" -> "is a risk analyst at a bank").
- "redundancy": the same fact in other words; nothing new.
- "new": both can be true at once (another item, another person or pet, another attribute, something \
done in addition).
Judge each stored memory on its own. Reply with JSON only: {{"judgements": [{{"index": <number>, \
"reasoning": "<at most 30 words>", "relation": "..."}}, ...]}} with one entry per stored memory.""",
    user="""\
New: {candidate}
Stored:
{stored}""",
)

# Theory-of-mind insights, asked by the background insights task, never on the hot path.
INSIGHTS_V1 = Prompt(
    version="insights.v1",
    system="""\
You study how a user relates to their assistant and to their own life, from what they recently did and \
said. Infer 1 to 3 latent insights about the user: emotions, trust, motivation, how their preferences \
are evolving, how they like to be helped. Only infer what the material supports; if it supports \
nothing beyond the facts themselves, return no insights.

Rules:
1. Third person: start with "User" (e.g. "User shows increased trust when admitting mistakes."). No \
pronouns for the assistant or AI, and no "I", "you" or "we".
2. One or two sentences, at most 280 characters each; neutral tone; no restating a single fact.
3. tags: up to 3 lowercase words (e.g. "trust", "style"); importance: 2 unless the insight matters more.
Reply with a single JSON object only.""",
    user="""\
Recent activity:
{activity}

New facts:
{facts}

Recent conversation:
{snippet}""",
)

# Post-turn episodic capture: is the finished turn an episode, and what was discussed / done.
EPISODE_V1 = Prompt(
    version="episode.v1",
    system="""\
You decide whether a finished conversation turn between a user and an assistant is worth remembering \
as an episode, and summarise it. An episode is an outcome: a decision the user took, something done \
(a tool call and its result, a booking, a purchase), a next step agreed, or a milestone. Routine turns \
(small talk, questions answered with general knowledge, thanks, pure statements of stable facts) are \
not episodes: answer should_create false.

For an episode:
- topic: what was discussed, a short noun phrase (at most 80 characters), e.g. "the monthly budget".
- approach: past tense, 1-2 sentences, third person starting with "User", about what was decided, \
done or set as the next step, e.g. "User decided to cut eating out to 150 euros a month." Leave out \
stable facts unless they changed. Ignore tool traces and boilerplate.
- outcome: decision, tool_result, next_step, milestone, recap or none; category: one of {categories}; \
importance 1-5 (2 for a routine outcome); tags: up to 3 lowercase words.
Reply with a single JSON object only.""",
    user="""\
Turn (oldest first):
{conversation}""",
)

SESSION_V1 = Prompt(
    version="session.v1",
    system="""\
You summarise a finished group-chat session for long-term memory. Be extractive and factual: state only \
what the messages say, name who said or decided what, invent nothing.
- summary: 3-6 short sentences, plain text, about what the session covered and concluded.
- topics: up to 4 short lowercase tags.
- decisions: explicit decisions or agreements, each one short sentence (none: an empty list).
- open_questions: questions or asks left unresolved at the end (none: an empty list).
- entities: people, places, organisations and tools named (none: an empty list).
Reply with a single JSON object only.""",
    user="""\
Chat session (oldest first):
{conversation}""",
)

# Appended to the user message when the first reply did not parse or validate.
CORRECTION_V1 = Prompt(
    version="correction.v1",
    system="",
    user="""\


Your previous reply was rejected: {error}
Reply again with only a JSON object that matches the required schema.""",
)

# Added to the system prompt when the server cannot enforce a JSON schema itself (json_object mode).
SCHEMA_HINT_V1 = Prompt(
    version="schema_hint.v1",
    system="""\


The JSON object must match this JSON schema exactly (all properties required, no others):
{schema}""",
    user="",
)

ALL_PROMPTS: tuple[Prompt, ...] = (
    EXTRACT_V2,
    SAME_FACT_V1,
    CONFLICT_V1,
    JUDGE_V1,
    INSIGHTS_V1,
    EPISODE_V1,
    SESSION_V1,
    CORRECTION_V1,
    SCHEMA_HINT_V1,
)
PROMPT_VERSION = "+".join(p.version for p in ALL_PROMPTS)

__all__ = [
    "ALL_PROMPTS",
    "CONFLICT_V1",
    "CORRECTION_V1",
    "EPISODE_V1",
    "EXTRACT_V2",
    "INSIGHTS_V1",
    "JUDGE_V1",
    "PROMPT_VERSION",
    "SAME_FACT_V1",
    "SESSION_V1",
    "SCHEMA_HINT_V1",
    "Prompt",
]
