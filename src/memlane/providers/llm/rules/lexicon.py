"""People, pets and jobs: the closed word lists that decide who a statement is about.

Generic English vocabulary only (never sentences from a test set). Multi-word entries are written
with ``_`` and looked up with spaces; every lookup is lowercase.
"""

from __future__ import annotations

import re


def words(text: str) -> frozenset[str]:
    """``"golden_retriever beagle"`` -> ``{"golden retriever", "beagle"}``."""
    return frozenset(w.replace("_", " ") for w in text.split())


def pairs(text: str) -> dict[str, str]:
    """``"mom=mother dad=father"`` -> ``{"mom": "mother", "dad": "father"}`` (``_`` stands for a space)."""
    return dict(p.replace("_", " ").split("=", 1) for p in text.split())


PET_SPECIES = words(
    """dog puppy pup cat kitten kitty rabbit bunny hamster guinea_pig parrot budgie bird canary cockatiel
    fish goldfish turtle tortoise snake lizard gecko iguana horse pony ferret chinchilla rat mouse
    hedgehog axolotl tarantula gerbil"""
)
DOG_BREEDS = words(
    """golden_retriever labrador labrador_retriever lab retriever beagle poodle bulldog french_bulldog
    frenchie pug husky corgi dachshund chihuahua german_shepherd border_collie collie shih_tzu terrier
    jack_russell yorkie boxer rottweiler doberman greyhound whippet spaniel cocker_spaniel schnauzer
    maltese pomeranian samoyed shiba_inu shiba akita great_dane dalmatian mutt labradoodle goldendoodle
    cavapoo cockapoo pit_bull pitbull staffy vizsla weimaraner basset_hound bloodhound sheepdog
    malinois bernese_mountain_dog newfoundland australian_shepherd aussie cavalier bichon"""
)
CAT_BREEDS = words(
    """siamese persian maine_coon ragdoll bengal sphynx british_shorthair tabby scottish_fold
    russian_blue abyssinian burmese norwegian_forest_cat birman"""
)
# relations there is one of (the name stays out of the key) and those there can be several of
SINGLE_RELATIONS = words(
    "wife husband spouse partner girlfriend boyfriend fiance fiancee mother father boss stepmother stepfather"
)
PLURAL_RELATIONS = words("parents grandparents kids children siblings twins in-laws")
MANY_RELATIONS = words(
    """son daughter child kid baby sister brother sibling twin cousin niece nephew aunt uncle grandmother
    grandfather grandson granddaughter grandchild friend colleague coworker roommate neighbour manager
    teammate mentor stepson stepdaughter mother-in-law father-in-law sister-in-law brother-in-law"""
)
RELATIONS: dict[str, bool] = {
    **dict.fromkeys(SINGLE_RELATIONS, False),
    **dict.fromkeys(MANY_RELATIONS | PLURAL_RELATIONS, True),
}
RELATION_ALIASES = pairs(
    """mom=mother mum=mother mommy=mother mummy=mother mama=mother dad=father daddy=father papa=father
    grandma=grandmother granny=grandmother nan=grandmother nana=grandmother grandpa=grandfather
    granddad=grandfather fiancé=fiance fiancée=fiancee co-worker=coworker flatmate=roommate
    housemate=roommate neighbor=neighbour best_friend=friend bff=friend hubby=husband gf=girlfriend
    bf=boyfriend stepmom=stepmother stepdad=stepfather kids=children kid=child little_brother=brother
    little_sister=sister older_brother=brother older_sister=sister younger_brother=brother
    younger_sister=sister big_brother=brother big_sister=sister"""
)

OCCUPATIONS = words(
    """teacher nurse doctor physician engineer developer designer electrician plumber carpenter chef cook
    baker lawyer accountant architect pharmacist dentist programmer manager consultant analyst
    scientist researcher professor lecturer student writer author journalist editor translator
    interpreter artist musician photographer painter actor actress dancer pilot driver mechanic
    firefighter officer policeman policewoman soldier farmer gardener cleaner waiter waitress bartender
    barista cashier salesperson librarian therapist psychologist psychiatrist physiotherapist surgeon
    vet veterinarian paramedic midwife caregiver carer worker secretary assistant receptionist
    administrator entrepreneur founder co-founder ceo cto cfo coo freelancer contractor technician tutor
    coach trainer instructor economist banker broker realtor agent marketer recruiter sysadmin tester
    copywriter illustrator animator producer director filmmaker stylist hairdresser barber tailor
    butcher fisherman miner welder builder roofer decorator surveyor optician radiologist pediatrician
    nutritionist dietitian biologist chemist physicist mathematician statistician historian lead
    archaeologist geologist linguist curator zookeeper ranger lifeguard courier postman clerk paralegal
    judge attorney solicitor notary auditor bookkeeper sommelier youtuber streamer influencer blogger
    podcaster dj composer singer guitarist pianist violinist drummer athlete footballer intern
    apprentice nanny babysitter housekeeper janitor guard cto professor postdoc phd_student
    software_engineer data_scientist product_manager project_manager ux_designer web_developer
    stay-at-home_mom stay-at-home_dad stay-at-home_parent homemaker housewife househusband"""
)
NOT_OCCUPATIONS = words(
    """fan lover beginner smoker drinker gamer reader member owner user customer subscriber believer
    supporter follower speaker learner father mother brother sister daughter son partner foreigner
    newcomer stranger winner loser other number vegetarian vegan pescatarian optimist pessimist realist
    idealist perfectionist minimalist introvert extrovert person human fanatic enthusiast geek nerd
    introverted extroverted junkie addict sleeper eater cooker dreamer"""
)
OCCUPATION_SUFFIXES = ("ist", "ician", "grapher", "ologist", "eer", "smith", "wright", "keeper")
# capitalised words that are never a person's name after "I'm"
NOT_NAMES = words(
    """sorry fine good great ok okay back here there ready done not so just really also still happy sad
    tired busy sure glad excited afraid new home from in at on the a an from well very super hungry
    thirsty bored free available late early currently now actually honestly totally almost always never
    learning working living trying going looking thinking testing feeling doing getting planning
    curious confused lost stuck interested allergic vegan vegetarian married single divorced engaged
    retired pregnant american british english french german sure certain afraid aware alone he she it
    they we you this that there these those here his her its their our your what who which my later
    tomorrow tonight today soon again anytime whenever sometime back"""
)
TRAITS = words(
    """left-handed right-handed ambidextrous introvert introverted extrovert extroverted colorblind
    colourblind night_owl early_bird morning_person night_person early_riser dyslexic autistic
    neurodivergent shy"""
)
# health conditions a statement names ("I have type 2 diabetes"); qualifiers ("chronic", "type 1") are read apart
CONDITIONS = words(
    """diabetes asthma adhd autism epilepsy migraine migraines crohn's crohn's_disease ibs anxiety depression
    high_blood_pressure hypertension high_cholesterol arthritis eczema psoriasis cancer a_heart_condition
    heart_disease long_covid ptsd ocd bipolar bipolar_disorder dyslexia insomnia sleep_apnea tinnitus lupus
    fibromyalgia multiple_sclerosis hypothyroidism hyperthyroidism pcos endometriosis gout scoliosis
    a_bad_back back_pain chronic_pain"""
)
# relationship statuses, one at a time
STATUSES = words("married single divorced engaged widowed separated in_a_relationship")


def family_terms(text: str) -> list[str]:
    """The family words of ``text`` as summaries write them ("nan" -> "grandmother"); a word as broad as
    "friend" or "child" would find too much."""
    found = {RELATION_ALIASES[w] for w in re.findall(r"[a-z]+", text.lower()) if w in RELATION_ALIASES}
    return sorted(found - {"friend", "children", "child"})
