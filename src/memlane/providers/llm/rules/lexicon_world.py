"""Places, languages, food, tools, dates and numbers: the closed word lists about the world."""

from __future__ import annotations

from memlane.providers.llm.rules.lexicon import CAT_BREEDS, DOG_BREEDS, pairs, words

COUNTRIES = words(
    """afghanistan albania algeria argentina armenia australia austria azerbaijan bangladesh belarus
    belgium bolivia bosnia brazil bulgaria cambodia cameroon canada chile china colombia croatia cuba
    cyprus czechia czech_republic denmark ecuador egypt england estonia ethiopia finland france georgia
    germany ghana greece guatemala honduras hungary iceland india indonesia iran iraq ireland israel
    italy jamaica japan jordan kazakhstan kenya korea south_korea kosovo latvia lebanon lithuania
    luxembourg malaysia malta mexico moldova mongolia montenegro morocco mozambique nepal netherlands
    the_netherlands holland new_zealand nigeria norway pakistan panama paraguay peru philippines poland
    portugal qatar romania russia rwanda saudi_arabia scotland senegal serbia singapore slovakia
    slovenia spain sri_lanka sweden switzerland syria taiwan tanzania thailand tunisia turkey uganda
    ukraine united_kingdom uk the_uk britain great_britain united_states usa us the_us the_usa
    the_states america uruguay uzbekistan venezuela vietnam wales yemen zambia zimbabwe"""
)
DEMONYMS = words(
    """american british english scottish welsh irish canadian australian french german italian spanish
    portuguese dutch belgian swiss austrian swedish norwegian danish finnish icelandic polish czech
    slovak hungarian romanian bulgarian greek turkish russian ukrainian serbian croatian brazilian
    argentinian argentine mexican colombian chilean peruvian venezuelan cuban chinese japanese korean
    vietnamese thai indian pakistani bangladeshi filipino indonesian malaysian nigerian ghanaian kenyan
    egyptian moroccan israeli lebanese iranian iraqi syrian saudi emirati estonian latvian lithuanian"""
)
LANGUAGES = words(
    """english spanish french german italian portuguese dutch swedish norwegian danish finnish
    icelandic polish czech slovak hungarian romanian bulgarian greek turkish russian ukrainian serbian
    croatian chinese mandarin cantonese japanese korean vietnamese thai hindi urdu bengali punjabi
    tamil telugu arabic hebrew persian farsi swahili indonesian malay tagalog catalan basque galician
    welsh irish latin esperanto afrikaans estonian latvian lithuanian sign_language asl bsl"""
)
DIETS = words(
    "vegetarian vegan pescatarian pescetarian flexitarian keto paleo carnivore halal kosher raw_vegan"
)
# foods a diet statement talks about, by group; a diet or "not eat X" excludes whole groups
FOOD_GROUPS: dict[str, frozenset[str]] = {
    "meat": words(
        """meat beef steak steaks pork bacon ham chicken lamb veal sausage sausages burger burgers
        hamburger hamburgers salami pepperoni turkey duck venison ribs brisket prosciutto chorizo
        meatballs hot_dog hot_dogs kebab"""
    ),
    "fish": words(
        """fish salmon tuna cod shrimp shrimps prawn prawns seafood oyster oysters crab lobster anchovies sardines mussels
        sushi trout squid calamari scallops clams mackerel halibut haddock herring hake monkfish octopus eel
        sashimi anchovy"""
    ),
    "dairy": words(
        """dairy milk cheese cheeses butter yogurt yoghurt cream ice_cream cheddar brie camembert feta halloumi
        mozzarella burrata parmesan pecorino gouda edam gruyere emmental manchego stilton gorgonzola roquefort
        ricotta mascarpone paneer labneh skyr kefir ghee buttermilk custard gelato milkshake milkshakes"""
    ),
    "eggs": words("egg eggs omelette omelettes frittata shakshuka"),
    "honey": words("honey"),
    # drinks by class (grapes and wine styles, beer styles and big brands, spirits, mixed drinks), not by
    # place: "lives in Bordeaux" must not read as wine
    "alcohol": words(
        """alcohol booze liquor beer beers wine wines vodka whisky whiskey gin rum cocktail cocktails
        merlot malbec rioja chianti shiraz syrah cabernet sauvignon pinot chardonnay riesling tempranillo
        grenache zinfandel prosecco champagne cava sherry vermouth madeira marsala
        ale ales lager lagers stout stouts ipa pilsner guinness heineken budweiser carlsberg peroni cider mead
        bourbon scotch brandy cognac armagnac tequila mezcal sake soju baijiu ouzo raki grappa schnapps
        absinthe sambuca limoncello amaretto calvados pisco cachaca
        sangria margarita margaritas mojito mojitos negroni negronis martini martinis spritz aperol daiquiri
        mimosa mimosas bellini"""
    ),
    "coffee": words("coffee espresso latte lattes cappuccino cappuccinos flat_white cold_brew"),
}
# the words of FOOD_GROUPS that name a whole group, not one food ("seafood", not "oysters")
# (and the words for a whole class inside a group: "loves cheese" / "can't stand feta" is an exception)
GENERAL_FOODS = words(
    "meat fish seafood dairy eggs alcohol booze liquor coffee honey cheese cheeses wine wines beer beers"
)
DIET_EXCLUDES: dict[str, tuple[str, ...]] = {
    "vegetarian": ("meat", "fish"),
    "vegan": ("meat", "fish", "dairy", "eggs", "honey"),
    "raw vegan": ("meat", "fish", "dairy", "eggs", "honey"),
    "pescatarian": ("meat",),
    "pescetarian": ("meat",),
}
# more specific -> more general, for "refinement" (likes JavaScript -> likes TypeScript)
HYPERNYMS: dict[str, str] = {
    **pairs(
        """typescript=javascript espresso=coffee latte=coffee cappuccino=coffee flat_white=coffee
        cold_brew=coffee matcha=tea green_tea=tea earl_grey=tea bebop=jazz swing=jazz deep_house=house
        neovim=vim sourdough=bread ramen=noodles udon=noodles puppy=dog kitten=cat"""
    ),
    **dict.fromkeys(
        words(
            """tennis football soccer basketball golf rugby cricket hockey baseball volleyball badminton squash
            padel swimming cycling running climbing bouldering skiing snowboarding surfing boxing"""
        ),
        "sports",
    ),
    **dict.fromkeys(
        words(
            """jazz rock pop techno metal heavy_metal reggae hip_hop rap classical_music blues folk punk house
            r&b soul opera indie disco funk"""
        ),
        "music",
    ),
    **dict.fromkeys(DOG_BREEDS, "dog"),
    **dict.fromkeys(CAT_BREEDS, "cat"),
}


def _slots(table: dict[str, str]) -> dict[str, str]:
    return {tool: slot for slot, tools in table.items() for tool in words(tools)}


# tool -> the slot it fills, for tech:<slot> keys ("I switched from Bun to Node")
TECH_SLOTS: dict[str, str] = _slots(
    {
        "editor": "vim neovim nvim emacs vscode vs_code visual_studio_code sublime intellij pycharm zed cursor "
        "webstorm helix nano atom xcode",
        "js_runtime": "node node.js nodejs bun deno",
        "os": "linux macos mac windows ubuntu arch fedora debian nixos",
        "shell": "bash zsh fish powershell nushell",
        "browser": "chrome firefox safari brave arc edge vivaldi opera",
        "phone": "iphone ios android pixel samsung galaxy oneplus xiaomi redmi oppo vivo huawei motorola nokia fairphone xperia",
        "database": "postgres postgresql mysql sqlite mongodb redis mariadb",
        "cloud": "aws gcp azure heroku vercel netlify",
        "js_package_manager": "npm yarn pnpm",
        "frontend_framework": "react vue angular svelte solid",
        "web_framework": "django flask fastapi rails laravel express nextjs next.js",
        "programming_language": "python javascript typescript java kotlin go golang rust ruby php swift c# c++ "
        "scala elixir haskell",
        "containers": "kubernetes docker podman",
        "notes_app": "notion obsidian evernote logseq joplin onenote",
        "music_app": "spotify tidal deezer",
        "mobile_carrier": "vodafone o2 ee lebara giffgaff lycamobile verizon at&t t-mobile mint_mobile orange movistar "
        "telstra optus rogers bell telus airtel jio swisscom",
        "issue_tracker": "jira linear trello asana clickup youtrack basecamp github_issues gitlab_issues",
        "password_manager": "1password bitwarden lastpass keepass keepassxc dashlane",
        "design_tool": "figma penpot sketch adobe_xd",
        "spreadsheet": "excel google_sheets libreoffice_calc airtable smartsheet",
        "budgeting_app": "ynab goodbudget quicken emma_app actual_budget moneydashboard",
        "streaming": "netflix hulu disney+ disney_plus prime_video amazon_prime hbo crunchyroll peacock paramount+ "
        "britbox mubi now_tv apple_tv+ youtube_premium",
    }
)
# services people pay for by the month: "i pay for netflix" names one though it is written in lowercase
SUBSCRIPTIONS = frozenset(
    t
    for t, slot in TECH_SLOTS.items()
    if slot in ("streaming", "music_app", "notes_app", "password_manager", "design_tool", "issue_tracker")
)
MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
MONTH_ABBR = {m[:3]: m for m in MONTHS} | {"sept": "september"}
_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
)
NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(_UNITS.split(" "))} | {
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "a hundred": 100,
    "hundred": 100,
}

# ISO currency codes and the names people say for them ("amounts in CAD" / "prices in Canadian dollars")
CURRENCY_CODES: dict[str, str] = {
    "cad": "Canadian dollars",
    "aud": "Australian dollars",
    "usd": "US dollars",
    "nzd": "New Zealand dollars",
    "sgd": "Singapore dollars",
    "hkd": "Hong Kong dollars",
    "eur": "euros",
    "gbp": "pounds",
    "chf": "Swiss francs",
    "jpy": "yen",
    "inr": "rupees",
    "sek": "Swedish kronor",
    "nok": "Norwegian kroner",
    "dkk": "Danish kroner",
    "pln": "zloty",
    "brl": "reais",
    "mxn": "Mexican pesos",
    "zar": "rand",
    "cny": "yuan",
    "krw": "won",
    "huf": "forint",
    "czk": "koruna",
    "aed": "dirhams",
    "thb": "baht",
    "ngn": "naira",
    "kes": "shillings",
}
# the last words of providers' names, by the kind of provider ("Octopus Energy", "Nationwide Building Society")
PROVIDER_NAMES: dict[str, frozenset[str]] = {
    "bank": frozenset({"bank", "building society"}),
    "energy": frozenset({"energy", "gas", "power", "electric", "electricity"}),
    "broadband": frozenset({"broadband", "fibre", "telecom"}),
}


def provider_kind(name: str) -> str | None:
    """The kind of provider a name of two words or more says it is by its last words: "British Gas" -> "energy"."""
    low = name.lower()
    if " " not in low:
        return None
    return next((k for k, ends in PROVIDER_NAMES.items() if any(low.endswith(f" {e}") for e in ends)), None)
