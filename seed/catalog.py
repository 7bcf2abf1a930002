"""Text building blocks for menus, reviews and deals."""

# unit -> (weight, lowest price, highest price) for an item of flower.
FLOWER_UNITS: dict[str, tuple[int, float, float]] = {
    "1g": (25, 8.0, 18.0),
    "3.5g": (50, 25.0, 60.0),
    "7g": (12, 45.0, 110.0),
    "14g": (7, 85.0, 200.0),
    "28g": (6, 150.0, 350.0),
}

# Fictional house brands; real brand names stay out of demo data.
BRANDS = (
    "Highland Farms", "Canyon Craft", "North Star", "Good Earth", "Sunday Goods",
    "Blue Heron", "Fieldstone", "Wildflower", "Copper Creek", "Lantern", "Tall Pines",
    "Daybreak", "Riverbend", "Hearth & Hemp", "Cloud Nine Labs",
)  # fmt: skip

GUMMY_FLAVORS = (
    "Watermelon", "Sour Cherry", "Mango", "Blue Raspberry", "Peach", "Pineapple", "Lemon",
    "Strawberry", "Grape", "Tangerine", "Black Cherry", "Passion Fruit", "Green Apple",
)  # fmt: skip

# category -> products as (name, unit, lowest price, highest price); "{f}" is a flavor.
PRODUCTS: dict[str, tuple[tuple[str, str, float, float], ...]] = {
    "edibles": (
        ("{f} Gummies", "10 pack", 12.0, 28.0),
        ("Sour {f} Chews", "10 pack", 12.0, 25.0),
        ("Dark Chocolate Bar", "100mg", 15.0, 30.0),
        ("Milk Chocolate Squares", "100mg", 14.0, 28.0),
        ("Sleep Berry Gummies", "20 pack", 18.0, 35.0),
        ("Peanut Butter Cups", "2 pack", 10.0, 20.0),
        ("Mint Chocolate Bites", "10 pack", 15.0, 28.0),
        ("Sparkling {f} Seltzer", "12 fl oz", 6.0, 12.0),
        ("Caramel Chews", "10 pack", 12.0, 24.0),
        ("{f} Fruit Chews", "20 pack", 15.0, 30.0),
    ),
    "concentrates": (
        ("Live Resin Badder", "1g", 30.0, 70.0),
        ("Shatter", "1g", 20.0, 45.0),
        ("Live Rosin", "1g", 45.0, 90.0),
        ("Diamonds & Sauce", "1g", 40.0, 80.0),
        ("Sugar Wax", "1g", 25.0, 50.0),
        ("Bubble Hash", "1g", 25.0, 55.0),
        ("Distillate Syringe", "1g", 25.0, 45.0),
    ),
    "vapes": (
        ("Live Resin Cartridge", "0.5g", 30.0, 55.0),
        ("Distillate Cartridge", "1g", 30.0, 60.0),
        ("All-in-One Disposable", "0.3g", 20.0, 35.0),
        ("{f} Distillate Cart", "1g", 28.0, 55.0),
        ("Rosin Disposable", "0.5g", 40.0, 70.0),
    ),
    "pre-rolls": (
        ("Classic Pre-Roll", "1g", 7.0, 15.0),
        ("Infused Pre-Roll", "1g", 12.0, 25.0),
        ("Mini Pre-Roll Pack", "5 x 0.5g", 20.0, 40.0),
        ("Hash-Infused Pre-Roll", "1g", 15.0, 28.0),
        ("Pre-Roll Twin Pack", "2 x 1g", 14.0, 26.0),
    ),
    "topicals": (
        ("Relief Balm", "1 oz", 20.0, 45.0),
        ("Cooling Lotion", "2 oz", 25.0, 50.0),
        ("CBD Muscle Rub", "2 oz", 20.0, 40.0),
        ("Transdermal Patch", "1 patch", 10.0, 20.0),
        ("Bath Soak", "6 oz", 15.0, 30.0),
    ),
    "tinctures": (
        ("1:1 Tincture", "30 ml", 35.0, 70.0),
        ("CBD Tincture 1000mg", "30 ml", 40.0, 80.0),
        ("Sleep Tincture", "15 ml", 25.0, 50.0),
        ("THC Tincture", "30 ml", 30.0, 65.0),
    ),
}

REVIEWS_GOOD = (
    "Friendly staff and a great selection of {thing}.",
    "The budtender helped me find exactly what I needed.",
    "Clean shop, fair prices and quick service.",
    "Love their {thing}; always fresh.",
    "Best dispensary in {city}, hands down.",
    "Easy parking, short line, knowledgeable staff.",
    "Great deals every week and the staff remembers me.",
    "Online ordering was fast and pickup took five minutes.",
)
REVIEWS_MIXED = (
    "Decent selection but the wait was long.",
    "Prices are a bit high; the staff was nice though.",
    "Good {thing}, but they were out of a few things on the menu.",
    "Solid shop, nothing special.",
    "Helpful staff, limited parking.",
)
REVIEWS_BAD = (
    "Waited thirty minutes and they were out of what I wanted.",
    "Staff seemed rushed and not very helpful.",
    "The menu online did not match what was in stock.",
    "Overpriced {thing} compared to other shops in {city}.",
)
REVIEW_THINGS = ("flower", "edibles", "pre-rolls", "vapes", "concentrates", "tinctures")

# Deal category -> (plural noun, singular noun) pairs used in deal titles.
DEAL_NOUNS: dict[str, tuple[tuple[str, str], ...]] = {
    "flower": (("all flower", "eighth"), ("eighths", "eighth"), ("top-shelf flower", "ounce")),
    "edibles": (
        ("all edibles", "edible"),
        ("gummies", "pack of gummies"),
        ("chocolates", "chocolate bar"),
    ),
    "concentrates": (
        ("all concentrates", "concentrate"),
        ("live resin", "gram of live resin"),
        ("rosin", "gram of rosin"),
    ),
    "vapes": (
        ("vape cartridges", "cartridge"),
        ("disposable vapes", "disposable"),
        ("all vapes", "vape"),
    ),
    "pre-rolls": (
        ("pre-rolls", "pre-roll"),
        ("infused pre-rolls", "infused pre-roll"),
        ("pre-roll packs", "pre-roll pack"),
    ),
    "topicals": (("topicals", "topical"), ("balms and lotions", "balm")),
    "tinctures": (("tinctures", "tincture"), ("CBD tinctures", "CBD tincture")),
}

# Relative frequency of deal categories; flower and edibles dominate real promotions.
DEAL_CATEGORY_WEIGHTS: dict[str, int] = {
    "flower": 30, "edibles": 20, "vapes": 15, "pre-rolls": 15, "concentrates": 10,
    "tinctures": 5, "topicals": 5,
}  # fmt: skip

DEAL_PREFIXES = (
    "Happy hour", "Weekend special", "First-time customers", "Daily deal", "Veterans",
    "Seniors", "Early bird", "Members",
)  # fmt: skip
