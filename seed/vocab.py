"""Words the demo strains are made of: trait values, name parts and description phrases.

The API takes any effect, flavor or terpene word; its fixed vocabularies (strain types and the
like) are in service.vocab.
"""

EFFECTS = (
    "relaxed", "happy", "euphoric", "uplifted", "creative", "sleepy", "energetic",
    "focused", "hungry", "talkative", "tingly", "giggly", "aroused",
)  # fmt: skip

FLAVORS = (
    "earthy", "sweet", "citrus", "berry", "pine", "woody", "spicy", "diesel", "pungent",
    "lemon", "grape", "vanilla", "skunk", "tropical", "mint", "herbal", "floral", "pepper",
    "cheese", "blueberry", "lime", "orange", "mango", "strawberry", "lavender", "coffee",
    "chocolate", "honey", "apple", "cherry",
)  # fmt: skip

TERPENES = (
    "myrcene", "limonene", "caryophyllene", "pinene", "linalool", "humulene",
    "terpinolene", "ocimene", "bisabolol",
)  # fmt: skip

# Relative weights of each effect by strain type; indicas sedate, sativas stimulate.
EFFECT_WEIGHTS: dict[str, dict[str, float]] = {
    "indica": {"relaxed": 9, "happy": 5, "euphoric": 4, "sleepy": 7, "hungry": 5, "tingly": 3,
               "energetic": 0.1, "focused": 0.4, "talkative": 0.4, "aroused": 0.3},
    "sativa": {"uplifted": 7, "energetic": 7, "creative": 6, "focused": 5, "talkative": 4,
               "happy": 5, "sleepy": 0.1, "hungry": 0.5, "aroused": 0.3},
    "hybrid": {"relaxed": 6, "happy": 7, "euphoric": 6, "uplifted": 5, "creative": 3,
               "aroused": 0.3},
}  # fmt: skip
DEFAULT_EFFECT_WEIGHT = 0.8
# Effects no one reports together; the weaker of a pair is dropped.
EXCLUSIVE_EFFECTS = (("sleepy", "energetic"), ("sleepy", "focused"), ("sleepy", "talkative"))

# Name words that imply a flavor: a "Lemon" strain should taste of lemon.
KEYWORD_FLAVORS: dict[str, tuple[str, ...]] = {
    "lemon": ("lemon", "citrus"), "lime": ("lime", "citrus"), "orange": ("orange", "citrus"),
    "tangerine": ("orange", "citrus"), "tangie": ("orange", "citrus"),
    "clementine": ("orange", "citrus"), "grape": ("grape", "sweet"),
    "blueberry": ("blueberry", "berry"), "berry": ("berry", "sweet"),
    "blackberry": ("berry", "sweet"), "raspberry": ("berry", "sweet"),
    "strawberry": ("strawberry", "berry"), "cherry": ("cherry", "sweet"),
    "mango": ("mango", "tropical"), "pineapple": ("tropical", "sweet"),
    "papaya": ("tropical", "sweet"), "guava": ("tropical", "sweet"),
    "banana": ("tropical", "sweet"), "watermelon": ("sweet", "tropical"),
    "peach": ("sweet", "tropical"), "apple": ("apple", "sweet"), "diesel": ("diesel", "pungent"),
    "gas": ("diesel", "pungent"), "fuel": ("diesel", "pungent"), "chem": ("diesel", "pungent"),
    "skunk": ("skunk", "pungent"), "cheese": ("cheese", "pungent"), "mints": ("mint", "sweet"),
    "mint": ("mint", "sweet"), "kush": ("earthy", "pine"), "og": ("pine", "earthy"),
    "vanilla": ("vanilla", "sweet"), "cookies": ("sweet", "vanilla"), "cake": ("vanilla", "sweet"),
    "gelato": ("sweet", "berry"), "sherbet": ("sweet", "citrus"), "pie": ("sweet", "earthy"),
    "haze": ("citrus", "spicy"), "lavender": ("lavender", "floral"), "honey": ("honey", "sweet"),
    "coffee": ("coffee", "earthy"), "chocolate": ("chocolate", "coffee"), "pine": ("pine",),
    "purple": ("grape", "berry"), "widow": ("earthy", "woody"), "jack": ("pine", "spicy"),
}  # fmt: skip

# Terpenes that carry each flavor, so terpene profiles agree with the flavors.
FLAVOR_TERPENES: dict[str, tuple[str, ...]] = {
    "citrus": ("limonene",), "lemon": ("limonene",), "lime": ("limonene",),
    "orange": ("limonene", "terpinolene"), "pine": ("pinene",), "woody": ("pinene", "humulene"),
    "spicy": ("caryophyllene",), "pepper": ("caryophyllene",), "diesel": ("caryophyllene",),
    "earthy": ("myrcene", "humulene"), "floral": ("linalool", "bisabolol"),
    "lavender": ("linalool",), "herbal": ("ocimene", "terpinolene"),
    "tropical": ("myrcene", "ocimene"), "mango": ("myrcene",), "sweet": ("ocimene",),
    "berry": ("myrcene",), "grape": ("myrcene",), "apple": ("terpinolene",),
}  # fmt: skip

TYPE_TERPENE: dict[str, str] = {
    "indica": "myrcene",
    "sativa": "terpinolene",
    "hybrid": "caryophyllene",
}

# Well-known strains, used first so the catalogue contains familiar names.
CLASSIC_STRAINS = (
    "Blue Dream", "Sour Diesel", "Northern Lights", "OG Kush", "Girl Scout Cookies",
    "Granddaddy Purple", "Jack Herer", "Green Crack", "White Widow", "Pineapple Express",
    "Gorilla Glue #4", "Purple Haze", "Durban Poison", "AK-47", "Bubba Kush", "Trainwreck",
    "Super Lemon Haze", "Wedding Cake", "Gelato", "Zkittlez", "Runtz", "Maui Wowie",
    "Strawberry Cough", "Chemdawg", "Headband", "Skywalker OG", "Tangie", "Do-Si-Dos",
    "Sunset Sherbet", "Mimosa", "Ice Cream Cake", "Purple Punch", "Cherry Pie", "Lemon Haze",
    "Blueberry", "Super Silver Haze", "Afghan Kush", "Hindu Kush", "Master Kush",
    "Purple Kush", "Fire OG", "Tahoe OG", "SFV OG", "Ghost Train Haze", "Lemon Tree",
    "Apple Fritter", "Biscotti", "Cereal Milk", "Jealousy", "Animal Cookies",
    "Forbidden Fruit", "Grape Ape", "Platinum OG", "Death Star", "Golden Goat",
    "Lamb's Bread", "Acapulco Gold", "Panama Red", "Cinderella 99", "Blue Cheese",
    "UK Cheese", "Critical Mass", "Big Bud", "Chocolope", "Candyland", "Harlequin", "ACDC",
    "Charlotte's Web", "Cannatonic", "Ringo's Gift", "Pennywise", "Sour Tsunami", "Harle-Tsu",
    "Alien OG", "Blackberry Kush", "Banana Kush", "Mango Kush", "Kosher Kush", "Lemon Skunk",
    "Super Skunk", "Skunk #1", "Strawberry Banana", "Tropicana Cookies",
    "Peanut Butter Breath", "Kush Mints", "Slurricane", "Triangle Kush", "Mendo Breath",
    "Blue Cookies", "Lemon Cherry Gelato", "Gelato #33", "Black Cherry Soda", "Grape Pie",
    "White Rhino", "Amnesia Haze", "Jillybean", "Sweet Tooth", "Clementine",
    "Orange Cookies", "Tangerine Dream", "Agent Orange", "Key Lime Pie", "Papaya",
    "Blue Widow", "Cherry AK-47", "Lemon Meringue", "Sour Tangie", "Chem Dog #4",
    "Girl Scout Cookies Extreme", "Hawaiian Snow", "Mazar-i-Sharif", "Malawi Gold",
)  # fmt: skip

# Known CBD-rich classics keep their real character ("cbd" dominant or "balanced").
CLASSIC_PROFILES: dict[str, str] = {
    "ACDC": "cbd", "Charlotte's Web": "cbd", "Cannatonic": "cbd", "Ringo's Gift": "cbd",
    "Sour Tsunami": "cbd", "Harle-Tsu": "cbd", "Harlequin": "balanced", "Pennywise": "balanced",
}  # fmt: skip

# First words of generated names: colours, fruit, places and adjectives.
NAME_PREFIXES = (
    "Blue", "Purple", "Green", "Golden", "White", "Black", "Pink", "Silver", "Red", "Lemon",
    "Lime", "Cherry", "Grape", "Strawberry", "Blueberry", "Mango", "Pineapple", "Tangerine",
    "Watermelon", "Peach", "Apricot", "Banana", "Guava", "Papaya", "Raspberry", "Blackberry",
    "Plum", "Apple", "Key Lime", "Vanilla", "Honey", "Cinnamon", "Sour", "Sweet", "Super",
    "Royal", "Cosmic", "Northern", "Southern", "Alpine", "Electric", "Frosty", "Velvet",
    "Mystic", "Lucky", "Wild", "Midnight", "Sunset", "Sunrise", "Desert", "Island", "Coastal",
    "Mountain", "Lava", "Arctic", "Atomic", "Crystal", "Diamond", "Platinum", "Emerald",
    "Ruby", "Jade", "Sapphire", "Tropical", "Jungle", "Galactic", "Lunar", "Solar", "Stellar",
    "Cali", "Humboldt", "Kona", "Bayou", "Dutch", "Afghan", "Hawaiian", "Thai", "Colombian",
    "Jamaican", "Moroccan", "Nepali", "Mendo", "Oregon", "Rocky Mountain", "Cascade",
    "Gulf Coast", "Blue Ridge", "Ozark", "Sierra", "Candy", "Starry", "Ghost",
    "Dragon", "Phoenix", "Grizzly", "Harbor", "Canyon", "Cedar",
)  # fmt: skip

# Last words of generated names: the strain "families" buyers recognise.
NAME_SUFFIXES = (
    "Dream", "Diesel", "Kush", "Haze", "Cookies", "Gelato", "Runtz", "Glue", "Widow", "Skunk",
    "Cake", "Sherbet", "OG", "Express", "Punch", "Breath", "Mints", "Cheese", "Chem", "Cough",
    "Lights", "Jack", "Queen", "Kiss", "Fire", "Frost", "Nova", "Wreck", "Pie", "Tart", "Zest",
    "Sorbet", "Mimosa", "Gas", "Funk", "Fuel", "Bliss", "Cream", "Octane", "Daze", "Storm",
    "Sage", "Shine", "Glow", "Magic", "Fusion", "Bomb", "Rush", "Cloud", "Temple", "Tonic",
    "Jam", "Soda", "Float", "Truffle", "Biscotti", "Cobbler", "Muffin", "Crush", "Dawg",
    "Runner", "Heart", "Thunder", "Lotus", "Trance", "Poison", "Goat", "Berry",
)  # fmt: skip

PHENOTYPES = ("#1", "#2", "#3", "#4", "#5", "#7", "#9", "#11", "#18", "#22", "#33", "#41")

INDICA_WORDS = frozenset({"Kush", "Purple", "Northern", "Afghan", "Grape", "Cake", "Cookies"})
SATIVA_WORDS = frozenset({"Haze", "Diesel", "Lemon", "Jack", "Express", "Tangerine", "Thai"})

TYPE_PHRASES: dict[str, tuple[str, ...]] = {
    "indica": ("an indica-dominant", "a classic indica", "a heavy-hitting indica",
               "a mellow indica", "a full-bodied indica"),
    "sativa": ("a sativa-dominant", "a bright sativa", "an energizing sativa",
               "a classic sativa", "a clear-headed sativa"),
    "hybrid": ("a balanced hybrid", "a well-rounded hybrid", "an indica-leaning hybrid",
               "a sativa-leaning hybrid", "an even-keeled hybrid"),
}  # fmt: skip

ORIGINS = (
    "bred on the West Coast", "with roots in Northern California craft gardens",
    "developed by Pacific Northwest growers", "that came out of the Colorado market",
    "descended from old-school landrace genetics", "popular in Michigan grow rooms",
    "from a small-batch Oregon breeder", "with a loyal following on the East Coast",
    "selected from a limited seed run", "grown indoors for dense, frosty buds",
)  # fmt: skip

EFFECT_SENTENCES = (
    "Consumers report feeling {effects}.",
    "Expect a {e1} high, with many also feeling {rest}.",
    "Most people describe it as {effects}.",
    "Reviewers often call it {effects}.",
    "The high starts {e1} and turns {rest}.",
)

FLAVOR_SENTENCES = (
    "It carries {flavors} notes on the exhale.",
    "The aroma is {f1} up front with {rest} notes underneath.",
    "Tasters pick up {flavors} notes.",
    "Its flavor profile mixes {flavors} notes.",
)

USE_PHRASES: dict[str, str] = {
    "sleepy": "A favorite for winding down at night.",
    "energetic": "Well suited to daytime errands and social plans.",
    "focused": "Popular for daytime projects that need concentration.",
    "creative": "Artists and musicians reach for it to get ideas flowing.",
    "hungry": "Keep snacks nearby.",
    "relaxed": "A good pick for unwinding after work.",
    "talkative": "A natural fit for social gatherings.",
    "giggly": "Best enjoyed with friends.",
}
CBD_USE = "Often chosen by patients who want relief without strong intoxication."
BALANCED_USE = "A gentle option for newer consumers."
