"""Word lists for people, streets and businesses in the demo dataset."""

FIRST_NAMES = (
    "Maria", "James", "Jamie", "Priya", "Michael", "Aisha", "David", "Sofia", "Daniel", "Mei",
    "Robert", "Fatima", "Carlos", "Emily", "Jordan", "Olivia", "Kwame", "Hannah", "Luis",
    "Grace", "Andre", "Chloe", "Noah", "Ava", "Ethan", "Isabella", "Liam", "Zoe", "Marcus",
    "Nina", "Samuel", "Leah", "Diego", "Rachel", "Omar", "Sara", "Kevin", "Alicia", "Tyler",
    "Megan", "Hiroshi", "Elena", "Brian", "Keisha", "Patrick", "Lauren", "Raj", "Monica",
    "Victor", "Jasmine", "Anthony", "Natalie", "Ahmed", "Claire", "Gabriel", "Erin", "Jin",
    "Casey", "Morgan", "Alex", "Riley", "Sam", "Chris", "Dana", "Quinn", "Avery",
)  # fmt: skip

LAST_NAMES = (
    "Lopez", "Smith", "Johnson", "Patel", "Nguyen", "Garcia", "Kim", "Williams", "Brown",
    "Martinez", "Chen", "Davis", "Rodriguez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore",
    "Jackson", "Martin", "Lee", "Thompson", "White", "Harris", "Clark", "Lewis", "Robinson",
    "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Hill", "Flores", "Green",
    "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
    "Shah", "Okafor", "Cohen", "Murphy", "O'Brien", "Sullivan", "Reyes", "Cruz", "Ramos",
    "Singh", "Yamamoto", "Park", "Novak", "Schmidt", "Rossi", "Haddad", "Mensah", "Kowalski",
)  # fmt: skip

STREET_NAMES = (
    "Main St", "Oak Ave", "Maple St", "Elm St", "Pine St", "Cedar Ave", "Washington Blvd",
    "Park Ave", "Lake Dr", "Hill Rd", "Broadway", "Center St", "Market St", "Church St",
    "Highland Ave", "1st St", "2nd Ave", "3rd St", "5th Ave", "Lincoln Ave", "Jefferson St",
    "Madison Ave", "Franklin St", "Jackson Blvd", "Sunset Blvd", "River Rd", "Mill St",
    "Spring St", "Union St", "Walnut St", "Chestnut St", "Willow Way", "Birch Ln",
    "Aspen Dr", "Magnolia Ave", "Sycamore St", "Harbor Blvd", "Bay St", "Ridge Rd",
    "Valley View Dr", "Canyon Rd", "Mesa Dr", "Prairie Ave", "College Ave", "University Ave",
    "Commerce St", "Industrial Pkwy", "Airport Rd", "State St", "Grand Ave", "Front St",
    "Water St", "Railroad Ave", "Lakeshore Dr", "Meadow Ln", "Orchard Rd", "Vine St",
)  # fmt: skip

DISPENSARY_FIRST = (
    "Green", "High", "Golden", "Emerald", "Evergreen", "Sunny", "Silver", "Blue", "Wild",
    "Mountain", "River", "Harbor", "Prairie", "Canyon", "Cedar", "Willow", "Sage", "Pine",
    "Coastal", "Northern", "Union", "Liberty", "Elevated", "Mellow", "Zen", "Honest",
    "Good", "True", "Peak", "Summit", "Lucky", "Kind", "Bright", "Healing", "Natural",
    "Urban", "Old Town", "Main Street", "Happy", "Higher", "Grateful", "Open", "Verde",
)  # fmt: skip

DISPENSARY_SECOND = (
    "Leaf", "Tide", "Bloom", "Roots", "Valley", "Garden", "Harvest", "Grove", "Field",
    "Ridge", "Path", "Light", "Mile", "Trail", "Sky", "Flower", "Canopy", "Meadow",
    "Oasis", "Haven", "Bud", "Seed", "Stem", "Farm", "Door", "Way", "Point", "Spring",
    "Tree", "Ground", "House", "Horizon", "Earth",
)  # fmt: skip

DISPENSARY_KIND = (
    "Dispensary", "Cannabis Co.", "Wellness", "Apothecary", "Collective", "Provisions",
    "Supply", "Cannabis", "Remedies", "Botanicals", "Market", "Cannabis Club",
)  # fmt: skip

MEDICAL_KIND = (
    "Wellness", "Apothecary", "Medical", "Compassion Center", "Health", "Remedies",
    "Dispensary", "Therapeutics",
)  # fmt: skip

CITY_KIND = ("Cannabis Co.", "Wellness", "Dispensary", "Provisions", "Cannabis Collective")
CITY_MEDICAL_KIND = ("Compassion Center", "Medical Cannabis", "Wellness", "Apothecary")
