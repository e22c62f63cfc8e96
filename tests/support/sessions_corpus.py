"""A year of conversations with one user, written for the recall test of session search.

Facts are planted in particular messages (marked with a key) among small talk and distractors
that share their common words; each question asks for facts in other words than the evidence
uses, as a model recalling past sessions would. `QUESTIONS` maps each question to the keys of
its evidence messages.
"""

from __future__ import annotations

# (title, messages); a message is (role, text) or (role, text, fact_key).
Message = tuple[str, str] | tuple[str, str, str]

SESSIONS: list[tuple[str, list[Message]]] = [
    (
        "Weekend plans",
        [
            ("user", "Morning! I have a pretty free weekend for once."),
            ("assistant", "Nice. Anything you would like to plan, or just rest?"),
            (
                "user",
                "My friend Dana signed up for a pottery class, it starts next Tuesday evening.",
                "dana_pottery",
            ),
            ("assistant", "That sounds fun. Wheel throwing or hand building?"),
            ("user", "Wheel throwing at the community arts center on Elm Street.", "pottery_place"),
            ("assistant", "Great spot. Will you join her?"),
            ("user", "Maybe later. This weekend I just want to clean the garage."),
            ("assistant", "A clean garage is a good weekend. Start with the shelves."),
        ],
    ),
    (
        "Python memory leak",
        [
            ("user", "Our ingestion worker keeps growing in memory until the container gets killed."),
            ("assistant", "Let's find it. Is it a long-running process with a cache?"),
            ("user", "Yes, it runs for days. We use an lru_cache on the parse function."),
            (
                "assistant",
                "An unbounded functools.lru_cache(maxsize=None) on a method keeps every argument alive. "
                "Set maxsize=1024 and the growth should stop.",
                "leak_fix",
            ),
            ("user", "Setting maxsize fixed it. Memory is flat now at 310 MB.", "leak_result"),
            ("assistant", "Good. Keep an eye on it with tracemalloc snapshots if it drifts."),
            ("user", "Thanks, that was the whole class of problem."),
        ],
    ),
    (
        "Dog care",
        [
            ("user", "We adopted a dog last weekend! A beagle mix named Biscuit.", "dog_name"),
            ("assistant", "Congratulations! How old is Biscuit?"),
            ("user", "About two years old, the shelter thinks.", "dog_age"),
            ("assistant", "A great age. Beagles love long walks and sniffing everything."),
            ("user", "The vet said she is allergic to chicken, so we feed her salmon kibble.", "dog_allergy"),
            ("assistant", "Salmon kibble is a common choice for chicken allergies."),
            ("user", "She already knows sit and paw."),
        ],
    ),
    (
        "Lisbon trip",
        [
            ("user", "We are thinking about a trip in spring."),
            ("assistant", "Any destination in mind?"),
            ("user", "Lisbon. We booked flights for April 14 to April 21.", "lisbon_dates"),
            ("assistant", "Lovely time to visit. Do you have a place to stay?"),
            ("user", "An apartment in Alfama, near the castle.", "lisbon_stay"),
            ("assistant", "Alfama is charming but hilly; pack comfortable shoes."),
            (
                "user",
                "My partner wants to take the tram 28 and eat pastéis de nata every day.",
                "lisbon_food",
            ),
            ("assistant", "Pastéis de Belém is the classic place for them."),
        ],
    ),
    (
        "Database migration",
        [
            ("user", "We need to move the orders service from MySQL 5.7 to PostgreSQL 16.", "db_migration"),
            ("assistant", "What is the size of the data and how much downtime can you accept?"),
            ("user", "About 400 GB. We can afford maybe 30 minutes of downtime at most.", "db_size"),
            (
                "assistant",
                "Use pgloader for the initial copy, then logical replication with a CDC tool to catch up, "
                "and switch over in a short maintenance window.",
                "db_plan",
            ),
            ("user", "We decided to use Debezium for the change data capture part.", "db_cdc"),
            ("assistant", "Debezium with Kafka Connect works well for that."),
            ("user", "The cutover is scheduled for the night of June 9.", "db_cutover"),
        ],
    ),
    (
        "Marathon training",
        [
            ("user", "I registered for the Berlin marathon in September!", "marathon_race"),
            ("assistant", "Exciting! Is it your first marathon?"),
            ("user", "Yes, my first. My goal is to finish under four hours.", "marathon_goal"),
            ("assistant", "Then aim for about 5:40 per kilometre on race day."),
            (
                "user",
                "My long run last Sunday was 28 kilometres and my knee hurt afterwards.",
                "marathon_knee",
            ),
            ("assistant", "Rest a few days and see a physio if the knee pain stays."),
            (
                "user",
                "The physio said it is runner's knee, she gave me hip strengthening exercises.",
                "marathon_physio",
            ),
        ],
    ),
    (
        "Book club",
        [
            ("user", "Our book club picked Piranesi by Susanna Clarke for next month.", "book_pick"),
            ("assistant", "A wonderful, strange book. Enjoy the House!"),
            ("user", "We meet at Lena's place on the first Thursday of every month.", "book_meeting"),
            ("assistant", "Do you take turns choosing the books?"),
            ("user", "Yes, and in December it is my turn. I will suggest Klara and the Sun.", "book_next"),
        ],
    ),
    (
        "Health",
        [
            ("user", "Can you remind me what to avoid at the Thai restaurant tonight?"),
            ("assistant", "Sure. Any allergies I should keep in mind?"),
            ("user", "I'm allergic to peanuts, a severe allergy, I carry an EpiPen.", "peanut_allergy"),
            ("assistant", "Then avoid satay, pad thai with peanuts, and ask about peanut oil."),
            ("user", "Good point about the oil. I will ask the waiter."),
        ],
    ),
    (
        "Family birthdays",
        [
            ("user", "I always forget my sister's birthday."),
            ("assistant", "Tell me the date and I will remind you."),
            ("user", "Maya was born on March 3rd, she turns 30 this year.", "maya_birthday"),
            ("assistant", "Noted: Maya, March 3rd, thirtieth birthday."),
            ("user", "I want to get her a record player, she collects vinyl.", "maya_gift"),
            ("assistant", "A record player is a thoughtful gift for a vinyl collector."),
        ],
    ),
    (
        "Car trouble",
        [
            ("user", "My car makes a grinding noise when I brake."),
            ("assistant", "That usually means worn brake pads. Get it checked soon."),
            ("user", "The garage replaced the front brake pads and rotors, it cost 480 euros.", "car_brakes"),
            ("assistant", "That is a fair price for pads and rotors."),
            ("user", "The car is a 2015 Skoda Octavia, by the way.", "car_model"),
        ],
    ),
    (
        "Learning Spanish",
        [
            ("user", "I started learning Spanish with an online tutor named Carlos.", "spanish_tutor"),
            ("assistant", "¡Qué bien! How often do you have lessons?"),
            ("user", "Twice a week, Mondays and Thursdays at 7 pm.", "spanish_schedule"),
            ("assistant", "That is a good rhythm for steady progress."),
            ("user", "Subjunctive is killing me though."),
            ("assistant", "Everyone struggles with the subjunctive; practice with wishes and doubts."),
        ],
    ),
    (
        "Garden",
        [
            ("user", "The tomatoes in the garden have yellow leaves at the bottom."),
            ("assistant", "Lower yellow leaves often mean early blight or a nitrogen shortage."),
            ("user", "I removed the affected leaves and sprayed a copper fungicide.", "garden_fix"),
            ("assistant", "Good. Water at the base, not on the leaves."),
            ("user", "I planted San Marzano and Cherokee Purple varieties this year.", "garden_varieties"),
        ],
    ),
    (
        "Job interview",
        [
            ("user", "I have an interview at Acme Robotics for a senior backend role.", "job_company"),
            ("assistant", "Congratulations on getting the interview! When is it?"),
            ("user", "Next Wednesday at 10 am, a system design round with two engineers.", "job_when"),
            ("assistant", "Practice designing a rate limiter and a job queue; both come up often."),
            (
                "user",
                "I got the offer! Starting salary is 95,000 euros and I start on August 1.",
                "job_offer",
            ),
            ("assistant", "Fantastic news, congratulations!"),
        ],
    ),
    (
        "Apartment move",
        [
            ("user", "We are moving to a bigger apartment in the Neustadt district.", "move_where"),
            ("assistant", "Exciting! When is the move?"),
            ("user", "The movers come on the 30th of the month, we hired Blitz Umzüge.", "move_company"),
            ("assistant", "Label the boxes by room to make unpacking easier."),
            ("user", "The new place has a balcony facing west, perfect for the tomatoes.", "move_balcony"),
        ],
    ),
    (
        "Small talk",
        [
            ("user", "What a week. Lots of meetings and a class at the gym."),
            ("assistant", "Sounds busy. Did you get some time to rest?"),
            ("user", "A little. I started a new series, but I forget the name."),
            ("assistant", "Happens to everyone. Was it any good?"),
            ("user", "Good enough. Anyway, the weather is nice, we might go for a walk with the dog."),
            ("assistant", "Enjoy the sunshine!"),
            ("user", "When is the next holiday? I need a trip."),
            ("assistant", "A short trip could be a good idea."),
        ],
    ),
]

# question -> keys of the messages holding its evidence
QUESTIONS: list[tuple[str, list[str]]] = [
    ("When did Dana start the pottery class?", ["dana_pottery"]),
    ("Where does Dana's pottery course take place?", ["pottery_place"]),
    ("How did we fix the memory leak in the ingestion worker?", ["leak_fix", "leak_result"]),
    ("What was the memory usage after the lru_cache change?", ["leak_result"]),
    ("What is the name of our dog?", ["dog_name"]),
    ("What is Biscuit allergic to?", ["dog_allergy"]),
    ("How old is the beagle we adopted?", ["dog_age"]),
    ("What dates did we book for Lisbon?", ["lisbon_dates"]),
    ("Where are we staying in Lisbon?", ["lisbon_stay"]),
    ("Which database are we migrating the orders service to?", ["db_migration"]),
    ("What tool did we choose for change data capture?", ["db_cdc"]),
    ("When is the database cutover scheduled?", ["db_cutover"]),
    ("How much downtime can the migration have?", ["db_size"]),
    ("Which marathon am I running?", ["marathon_race"]),
    ("What finish time am I aiming for in the marathon?", ["marathon_goal"]),
    ("What did the physio say about my knee?", ["marathon_physio", "marathon_knee"]),
    ("What book did the book club choose?", ["book_pick"]),
    ("Where does the book club meet?", ["book_meeting"]),
    ("What am I allergic to?", ["peanut_allergy"]),
    ("When is Maya's birthday?", ["maya_birthday"]),
    ("What gift do I want to buy my sister?", ["maya_gift"]),
    ("How much did the brake repair cost?", ["car_brakes"]),
    ("What car do I drive?", ["car_model"]),
    ("Who is my Spanish tutor?", ["spanish_tutor"]),
    ("When are my Spanish lessons?", ["spanish_schedule"]),
    ("What did I do about the yellow leaves on the tomatoes?", ["garden_fix"]),
    ("Which tomato varieties did I plant?", ["garden_varieties"]),
    ("Which company did I interview with?", ["job_company"]),
    ("What salary did Acme offer me?", ["job_offer"]),
    ("When do I start the new job?", ["job_offer"]),
    ("Which neighbourhood are we moving to?", ["move_where"]),
    ("Which moving company did we hire?", ["move_company"]),
]
