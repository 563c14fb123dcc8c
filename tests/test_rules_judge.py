"""The offline judge: same_fact and classify_conflict of the rules LLM, and the fact frames (values
masked) behind them: corrections with no key and no familiar phrasing, stances that retire what they
rule out, refinements, look-alikes that must both stay, and paraphrases that are neither."""

from __future__ import annotations

import pytest

from memlane.providers.llm.rules import RulesLLM
from memlane.providers.llm.rules.compare import stem
from memlane.providers.llm.rules.conflict import classify
from memlane.providers.llm.rules.frames import frame
from memlane.providers.llm.rules.same_fact import same_fact

LLM = RulesLLM()

PAIRS = [
    # a new value of the same attribute, said in other words
    ("User's daughter Nell is 4 years old.", "Nell celebrated her fifth birthday.", "contradiction"),
    ("User's tortoise Sheldon is 31.", "Sheldon the tortoise is 32 now.", "contradiction"),
    (
        "User takes 50 mg of sertraline a day.",
        "User's psychiatrist upped the sertraline to 100 mg.",
        "contradiction",
    ),
    (
        "User's mortgage payment is 900 pounds a month.",
        "User's mortgage payment rose to 980 pounds.",
        "contradiction",
    ),
    (
        "User's dissertation defence is on March 3.",
        "User's dissertation defence was postponed to April 21.",
        "contradiction",
    ),
    ("User builds the mobile app in Swift.", "User ported the mobile app to Kotlin.", "contradiction"),
    ("User drinks black tea at breakfast.", "User switched to green tea at breakfast.", "contradiction"),
    ("User works for Deloitte.", "User resigned from Deloitte to go freelance.", "contradiction"),
    (
        "User ate at Dishoom with friends last night.",
        "User ate at Hoppers with friends last night.",
        "contradiction",
    ),
    ("User is a junior designer.", "User was promoted to senior designer.", "contradiction"),
    ("User's visa application was approved.", "User's visa application was rejected.", "contradiction"),
    ("User runs every evening.", "User does not run anymore.", "contradiction"),
    ("User bakes bread every weekend.", "User used to bake bread every weekend.", "contradiction"),
    # the specific replaces the general
    ("User works in education.", "User is a chemistry teacher at a secondary school.", "refinement"),
    # both hold
    ("User drinks black tea at breakfast.", "User also drinks green tea in the afternoon.", "new"),
    ("User cycles 20 km on Saturdays.", "User cycles 8 km on weekdays.", "new"),
    ("User likes jazz.", "User likes reggae.", "new"),
    ("User is allergic to penicillin.", "User is allergic to cats.", "new"),
    ("User's brother Ravi lives in Pune.", "User lives in Mumbai.", "new"),
    ("User likes films.", "User does not like horror films.", "new"),
]


# the same fact in other words: never replaced, never kept apart by a verdict (the similarity decides)
PARAPHRASES = [
    ("User's dog Max is a labrador.", "Max, the user's dog, is a Labrador."),
    ("User also plays the guitar.", "User plays guitar too."),
    ("User has a Tesla Model 3.", "User drives a Tesla Model 3."),
    ("User prefers tea to coffee.", "User likes tea better than coffee."),
    ("User's sister Mia lives in Porto.", "Mia, the user's sister, is based in Porto."),
    ("User's daughter is 7 years old.", "The user's daughter is seven."),
    ("User's rent is $2,000 per month.", "User pays 2000 dollars a month in rent."),
    ("User plays tennis on Tuesdays.", "On Tuesdays the user plays tennis."),
    ("User's manager, Dana, is very supportive.", "Dana, who manages the user, is really supportive."),
    ("User's grandmother turned 90 last week.", "Last week the user's grandma celebrated her 90th birthday."),
]


@pytest.mark.parametrize(("existing", "candidate"), PARAPHRASES)
def test_a_paraphrase_is_not_a_change_or_a_new_fact(existing: str, candidate: str) -> None:
    verdict = classify(existing, candidate)
    assert verdict.relation in ("redundancy", "unsure"), verdict.reason


@pytest.mark.parametrize(("existing", "candidate", "relation"), PAIRS)
def test_relation_by_frame(existing: str, candidate: str, relation: str) -> None:
    verdict = classify(existing, candidate)
    if relation == "new":  # both hold: never replaced, never called the same fact
        assert verdict.relation in ("new", "unsure"), verdict.reason
        assert not same_fact(existing, candidate).same_fact
    else:
        assert verdict.relation == relation, verdict.reason


def test_a_frame_masks_values_and_markers() -> None:
    f = frame("User's psychiatrist upped the sertraline to 100 mg.")
    assert f.numbers == {100.0} and f.units == {"dose"}
    assert f.markers  # "upped" announces a change
    assert stem("sertraline") in f.words and not f.words & {"100", "mg"}


def test_a_name_at_the_start_is_the_subject_when_the_user_is_not_named() -> None:
    assert frame("Nell celebrated her fifth birthday.").who.name == "nell"
    assert frame("Nell celebrated her fifth birthday.").numbers == {5.0}
    assert frame("Yesterday the user went sailing.").who.kind == "user"


def test_the_word_lists_are_data() -> None:
    """A deployment teaches the judge a word by editing frames.yaml, not code."""
    from memlane.providers.llm.rules import frames

    assert "switched" in frames._DATA["change"].split() and "finance" in frames.FIELDS


# --- the judge as a whole: same_fact and classify_conflict on the rules LLM ---------------------

SAME_FACT = [
    ("User lives in Tallinn.", "User is based in Tallinn.", True),
    ("User is allergic to sesame.", "User has a sesame allergy.", True),
    ("User is vegan.", "User follows a vegan diet.", True),
    ("User's favourite language is Go.", "User likes Go more than any other language.", True),
    ("User prefers window seats on trains.", "User likes sitting by the window on trains.", True),
    ("User's rabbit Clover is 3 years old.", "User's rabbit Clover is 4 years old.", False),
    ("User's birthday is on May 9.", "User's birthday is on May 19.", False),
    ("User likes gin.", "User hates gin.", False),
    ("User likes chess.", "User likes poker.", False),
    ("User lives in Tallinn.", "User's brother lives in Tallinn.", False),
    ("User has a parrot named Mango.", "User has a parrot named Kiwi.", False),
]


@pytest.mark.parametrize(("existing", "candidate", "same"), SAME_FACT)
def test_same_fact(existing: str, candidate: str, same: bool) -> None:
    verdict = LLM.same_fact(existing, candidate)
    assert verdict.same_fact is same, verdict.reason
    assert verdict.reason


def test_same_fact_category_mismatch() -> None:
    assert not LLM.same_fact(
        "User earns 2,500 euros a month.", "User makes 2,500 euros a month.", "Health"
    ).same_fact
    assert LLM.same_fact(
        "User earns 2,500 euros a month.", "User makes 2,500 euros a month.", "Finance"
    ).same_fact
    assert LLM.same_fact("User is vegan.", "User is a vegan.", "Personal").same_fact


# "unsure": nothing in the texts ties or separates them; the embedding similarity band decides
CONFLICTS = [
    # contradiction: same subject and slot, different value
    ("User lives in Tallinn.", "User moved to Riga, where they now live.", "contradiction"),
    ("User's rabbit Clover is 3 years old.", "User's rabbit Clover is 4 years old.", "contradiction"),
    ("User likes gin.", "User hates gin.", "contradiction"),
    ("User uses Deno as their runtime.", "User switched from Deno to Bun.", "contradiction"),
    ("User works as a plumber.", "User works as an architect.", "contradiction"),
    ("User loves bacon.", "User does not eat meat anymore.", "contradiction"),
    ("User eats fish every week.", "User is vegetarian.", "contradiction"),
    ("User drinks a lot of tea.", "User does not drink tea anymore.", "contradiction"),
    ("User's birthday is on May 9.", "User's birthday is on May 19.", "contradiction"),
    # refinement: a more specific version of the same slot
    ("User lives in Portugal.", "User lives in Braga.", "refinement"),
    ("User has a cat.", "User has a maine coon named Tofu.", "refinement"),
    ("User likes coffee.", "User especially loves espresso.", "refinement"),
    ("User works as a teacher.", "User works as a teacher at Riverside Academy.", "refinement"),
    # redundancy: same content, paraphrase
    ("User lives in Tallinn.", "User is based in Tallinn.", "redundancy"),
    ("User is vegan.", "User follows a vegan diet.", "redundancy"),
    ("User is allergic to sesame.", "User has a sesame allergy.", "redundancy"),
    ("User has a dog named Ziggy.", "User's dog is called Ziggy.", "redundancy"),
    ("User lives in Brooklyn, New York.", "User lives in New York.", "redundancy"),
    (
        "User pays a 900 euro rent instalment on the 3rd.",
        "User's rent payment of 900 euros is due on the 3rd.",
        "redundancy",
    ),
    # new: unrelated, or about someone else
    ("User likes chess.", "User likes poker.", "unsure"),
    ("User lives in Tallinn.", "User's sister lives in Kyoto.", "new"),
    ("User loves bacon.", "User's girlfriend does not eat meat.", "new"),
    ("User has a parrot named Mango.", "User has a parrot named Kiwi.", "new"),
    (
        "User speaks Polish.",
        "User works as a plumber.",
        "unsure",
    ),  # nothing ties them: the similarity decides
    ("User likes films.", "User does not like horror films.", "new"),
    ("User decided to sell their motorbike.", "User decided to learn the cello.", "unsure"),
    ("User booked a flight to Oslo for May.", "User booked a hotel in Oslo for May.", "unsure"),
    ("User is allergic to latex.", "User is allergic to sesame.", "unsure"),
]


@pytest.mark.parametrize(("existing", "candidate", "relation"), CONFLICTS)
def test_classify_conflict(existing: str, candidate: str, relation: str) -> None:
    verdict = LLM.classify_conflict(existing, candidate)
    assert verdict.relation == relation, verdict.reason
    assert verdict.reason


# --- events with other people, one-off occasions, states that rule habits out (roles.py, frames.yaml) --

BOTH_HOLD = [
    # the same kind of event with other companions or recipients: two events, never one memory
    ("User went bouldering with Priya.", "User went bouldering with Felix."),
    ("User baked a cake for their grandmother.", "User baked a cake for their nephew."),
    ("User lent Marta a tent.", "User lent Idris a tent."),
    ("User is practising Spanish with Lucia.", "User is practising Spanish with Pablo."),
    ("User visited their aunt on Saturday.", "User visited their cousin on Saturday."),
    # one-off past events on other days at other places
    (
        "User had a dentist appointment at Smile Clinic on Tuesday.",
        "User had a dentist appointment at Brightwhite on Friday.",
    ),
]


BOTH_HOLD += [
    # one unit ties two statements only when nothing else is said: an age and a marriage's length differ
    ("User is 41 years old.", "User has been married for 12 years."),
    ("User is 41 years old.", "User has lived in Cork for 12 years."),
    # foods are matched as written, not by stem: "codes" is no cod
    ("User codes in Haskell most evenings.", "User went vegan."),
    # a change marker says a value changed, not that every statement sharing a word did
    ("User prefers the aisle seat on trains.", "User's train to Bath was moved to June 3."),
]


@pytest.mark.parametrize(("existing", "candidate"), BOTH_HOLD)
def test_events_with_other_people_or_on_other_occasions_both_hold(existing: str, candidate: str) -> None:
    verdict = classify(existing, candidate)
    assert verdict.relation in ("new", "unsure"), verdict.reason
    assert not same_fact(existing, candidate).same_fact


RETIRED = [
    # a state that rules out what the old fact implies (frames.yaml: habits, rules_out)
    ("User has a glass of red wine most evenings.", "User is sober now."),
    ("User orders pepperoni pizza every Friday.", "User went vegetarian."),
    ("User puts cream in everything.", "User is dairy-free these days."),
    ("User takes smoke breaks at work.", "User is an ex-smoker."),
    # a habit given up, named by a gerund or by what implies it
    ("User goes to the pool every morning.", "User stopped going to the pool."),
    ("User plays PlayStation after work.", "User gave up video games."),
    ("User drinks two espressos a day.", "User quit caffeine."),
    # what was traded in, graduated from, sold
    ("User rides a Vespa to work.", "User traded in the Vespa for an e-bike."),
    ("User is a PhD student at ETH Zurich.", "User graduated from ETH Zurich."),
    # a value of one unit, tied by the unit alone
    ("User weighs 70 kg.", "User is down to 64 kg."),
    # a change marker the old statement lacks, with another named value
    ("User works remotely for Miro.", "User took a job at Figma."),
    # two names of one kind of place (frames.yaml institutions), one left for the other
    ("User trains at Gold's Gym.", "User transferred to the Anytime Gym."),
    # the stance flips on the same thing, said with other stance words
    ("User can't stand olives.", "User has started to love olives."),
    # a correction of the same occasion stays a correction: only the day differs
    ("User's book club meets on Tuesday.", "User's book club moved to Thursday."),
]


@pytest.mark.parametrize(("existing", "candidate"), RETIRED)
def test_the_new_statement_retires_the_old(existing: str, candidate: str) -> None:
    verdict = classify(existing, candidate)
    assert verdict.relation == "contradiction", verdict.reason


def test_an_ordinary_word_is_not_a_tool_unless_capitalised() -> None:
    """'opera' the music is no browser and 'fish' the food no shell; 'Opera' and 'Fish' are."""
    assert not frame("User loves opera.").kinds and not frame("User eats fish on Fridays.").kinds
    assert frame("User browses with Opera.").kinds == {"browser"}
    assert classify(
        "User gave Ama a record of opera arias.", "User gave Jo a record of opera arias."
    ).relation in ("new", "unsure")


def test_a_name_given_is_not_someone_met() -> None:
    """'is called Leon' names the partner; it is no event with Leon: the new name replaces the old."""
    assert (
        classify("User's partner is called Tomasz.", "User's partner is called Leon.").relation
        == "contradiction"
    )


def test_giving_up_one_subscription_leaves_another() -> None:
    """What is given up is named by the head of its object: 'cancelled the Hulu subscription' retires
    the Hulu subscription, not the Audible one."""
    assert (
        classify("User has an Audible subscription.", "User cancelled their Hulu subscription.").relation
        != "contradiction"
    )
    assert (
        classify("User pays for Hulu every month.", "User cancelled their Hulu subscription.").relation
        == "contradiction"
    )


def test_the_judge_names_what_a_candidate_retires_for_a_keyword_search() -> None:
    """RulesLLM.implied_terms: formation searches stored memories by these words (formation/implied.py)."""
    assert {"beer", "wine"} <= set(LLM.implied_terms("User is sober now."))
    assert {"cigarettes", "tobacco"} <= set(LLM.implied_terms("User kicked the smoking habit; quit smoking."))
    assert LLM.implied_terms("User likes green tea.") == []


# --- decisions no key ties together (pairs written apart from every scenario set) ---

UNKEYED_DECISIONS = [
    # a stance turned over and back: the latest wins, stance and leaving words aside
    ("User adores pickled herring.", "User can no longer tolerate pickled herring.", "contradiction"),
    ("User can't stomach coriander anymore.", "User enjoys coriander again.", "contradiction"),
    (
        "User has stopped putting honey in their porridge.",
        "User is putting honey in their porridge again.",
        "contradiction",
    ),
    (
        "User quit cycling to the office.",
        "User is back to cycling to the office twice a week.",
        "contradiction",
    ),
    ("User cannot stand celery.", "User has come round to celery.", "contradiction"),
    # a dislike of one thing under a group the other likes as a whole: both hold
    ("User adores fish.", "User hates sardines.", "new"),
    ("User is a big fan of cheese.", "User cannot stand goat cheese.", "new"),
    # a tool slot that holds one tool at a time: another tool replaces the old one, whatever else is said
    ("User writes code in Emacs.", "User made Helix their everyday editor.", "contradiction"),
    ("User carries a Nokia 8.", "User now has a Xiaomi 14.", "contradiction"),
    # days with their part of the day are one value
    ("User does yoga on Tuesday mornings.", "User moved yoga to Thursday evenings.", "contradiction"),
    (
        "User's choir rehearses on Wednesday evenings.",
        "User's choir now rehearses on Friday mornings.",
        "contradiction",
    ),
    # a short object between the verb and "from X to Y"
    (
        "User stores their photos in Dropbox.",
        "User migrated all of their photos from Dropbox to iCloud.",
        "contradiction",
    ),
    # a general word, then a kind of it the lexicon does not list (found by the embedding model)
    ("User has a pet.", "User keeps a gerbil named Biscuit.", "refinement"),
    ("User plays a musical instrument.", "User plays the banjo in a bluegrass band.", "refinement"),
    ("User practises a martial art.", "User trains taekwondo on weekday evenings.", "refinement"),
    ("User is into team sports.", "User plays netball for her office.", "refinement"),
    # the same statement told again with a place, a name or a time
    ("User does some tutoring.", "User tutors maths every Wednesday at the Elmwood library.", "refinement"),
    # or the thing it speaks of, named
    ("User rides a road bike.", "User's bike is a Canyon Endurace.", "refinement"),
]

# look-alikes the kind and detail refinements must leave alone
NOT_REFINED = [
    ("User has a pet.", "User has a sister named Odile."),  # a sister is no pet
    ("User has a dog.", "User has a cat named Tom."),  # a sibling kind, not a kind of dog
    ("User plays a sport.", "User plays chess on Fridays."),  # chess is listed as a game
    ("User goes running.", "User went running with Priya on Saturday."),  # one occasion, not the habit
    ("User is learning a language.", "User is learning to play the banjo."),
    ("User likes jazz.", "User likes Ella Fitzgerald."),  # a shared stance is no shared thing
    ("User wants an electric scooter.", "User's scooter is a Vespa."),  # wanting is not having
]


# general words refined by a listed kind, jobs of other people, renewed expiries, one favourite,
# one display theme, titles given up with their habit
REFINED_OR_RENEWED = [
    ("User has kids.", "User has a son of 9 and a daughter of 12.", "refinement"),
    ("User has a vehicle.", "User rides a Vespa scooter to work.", "refinement"),
    ("User owns a car.", "User drives a 2021 Toyota Corolla hatchback.", "refinement"),
    (
        "User's brother Anil works as a chef at Dishoom.",
        "User's brother Anil is now a sous-chef at Hoppers.",
        "contradiction",
    ),
    ("User's mum Greta works at Lidl.", "User's mum Greta now works at the Co-op.", "contradiction"),
    (
        "User's driving licence expires in March 2028.",
        "User renewed their driving licence, now valid until 2038.",
        "contradiction",
    ),
    ("User's favourite author is Le Guin.", "User's favourite author is now Ishiguro.", "contradiction"),
    (
        "User's favourite podcast right now is Radiolab.",
        "User's favourite podcast is now Reply All.",
        "contradiction",
    ),
    (
        "User uses light mode on their laptop.",
        "User has changed to dark mode on the laptop.",
        "contradiction",
    ),
    ("User plays Stardew Valley every weekend.", "User gave up gaming last month.", "contradiction"),
    ("User holds a Kenyan passport.", "User renewed their passport, now valid until May 2035.", "new"),
]

# look-alikes these mechanisms must leave alone
NOT_CHANGED = [
    ("User plays the viola in a quartet.", "User gave up gaming last month."),  # a listed kind: no title
    ("User plays for Leyton Orient reserves.", "User gave up gaming last month."),  # "plays for": a team
    ("User wants kids one day.", "User has a nephew named Ilya."),  # wanting is not having
    ("User's cousin Mira works at Deloitte.", "User's cousin Mira is now a regular at Pure Gym."),  # no role
    ("User's favourite author is Le Guin.", "User's favourite painter is Hockney."),  # another frame
]


@pytest.mark.parametrize(("existing", "candidate", "relation"), REFINED_OR_RENEWED)
def test_a_general_word_refined_or_a_renewal_is_judged(existing: str, candidate: str, relation: str) -> None:
    test_relation_by_frame(existing, candidate, relation)


@pytest.mark.parametrize(("existing", "candidate"), NOT_CHANGED)
def test_a_look_alike_is_no_change(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation not in ("refinement", "contradiction")


def test_a_sibling_word_is_no_child() -> None:
    from memlane.providers.llm.rules.kind_of import kind_of

    assert kind_of("daughter") == "child" and kind_of("niece") != "child" and kind_of("brother") != "child"


def test_quitting_a_habit_searches_for_the_titles_it_implies() -> None:
    assert {"plays", "playing"} <= set(LLM.implied_terms("User has quit video games for good."))


@pytest.mark.parametrize(("existing", "candidate", "relation"), UNKEYED_DECISIONS)
def test_a_decision_no_key_ties_together_is_judged(existing: str, candidate: str, relation: str) -> None:
    test_relation_by_frame(existing, candidate, relation)


@pytest.mark.parametrize(("existing", "candidate"), NOT_REFINED)
def test_a_look_alike_is_no_refinement(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation not in ("refinement", "contradiction", "redundancy")


def test_an_episode_summary_is_judged_by_what_it_says_was_done() -> None:
    episode = "On 2026-07-11 (W28, 2026) we discussed the wedding. Approach: User got married to Idris."
    assert classify("User is engaged.", episode).relation == "contradiction"
    undated = episode.split(") ", 1)[1]  # "we discussed ...": how decide() hands an episode to the judge
    assert classify("User is engaged.", undated).relation == "contradiction"
    assert {"single", "engaged"} <= set(LLM.implied_terms(episode))  # found by keyword though far in meaning
    assert LLM.implied_terms("User is not married.") == []


def test_a_hand_is_no_leaving_and_a_compound_is_its_parts() -> None:
    assert not frame("User throws with their right hand.").markers
    assert frame("User left Lisbon in May.").markers == {"left"}
    assert same_fact("User is right-handed.", "User throws with their right hand.").same_fact
    assert not same_fact("User is left-handed.", "User throws with their right hand.").same_fact


def test_kind_of_reads_the_kinds_rows_and_the_model() -> None:
    from memlane.providers.llm.rules.kind_of import kind_of

    assert kind_of("cello") == "instrument"  # listed: no model asked
    assert kind_of("parakeet") == "pet" and kind_of("jujitsu") == "martial_art"  # unlisted: nearest members
    assert kind_of("apartment") is None and kind_of("sister") is None


def test_someone_named_by_a_family_word_is_that_relation() -> None:
    """ "Grandpa turned 80" is about the user's grandfather, not about a stranger called Grandpa."""
    assert (
        classify(
            "User's grandfather is 79 years old.", "User mentioned that Grandpa is 80 years old."
        ).relation
        == "contradiction"
    )
    assert classify(
        "User's grandfather is 79 years old.", "User mentioned that Lorenzo is 80 years old."
    ).relation in ("new", "unsure")


@pytest.mark.parametrize(
    ("comparative", "negative"),
    [
        ("User prefers cycling to the bus.", "User hates taking the bus."),
        ("User prefers paperbacks over e-readers.", "User dislikes e-readers."),
    ],
)
def test_a_comparative_preference_says_what_is_liked_less(comparative: str, negative: str) -> None:
    """ "prefers A over B" and "hates B" say one thing: never a correction, the same fact when near."""
    assert classify(comparative, negative).relation == "unsure"
    assert same_fact(comparative, negative).same_fact
    assert not same_fact(comparative, "User hates cycling.").same_fact  # A, not B
