"""A conversion-value schema the conversion tests share: a game whose first window tells
installs, the tutorial and three purchase bands apart, and whose later windows grade purchases
coarsely."""

SCHEMA = {
    "currency": "USD",
    "windows": [
        {"lock_window": True, "rules": [
            {"fine": 0, "coarse": "low"},
            {"event_name": "tutorial_complete", "fine": 5, "coarse": "low"},
            {"event_name": "purchase", "min_revenue": "0.01", "max_revenue": 5,
             "fine": 20, "coarse": "medium"},
            {"event_name": "purchase", "min_revenue": 5, "max_revenue": 20,
             "fine": 40, "coarse": "high"},
            {"event_name": "purchase", "min_revenue": 20, "fine": 63, "coarse": "high"},
        ]},
        {"rules": [
            {"coarse": "low"},
            {"event_name": "purchase", "min_revenue": "0.01", "max_revenue": 10,
             "coarse": "medium"},
            {"event_name": "purchase", "min_revenue": 10, "coarse": "high"},
        ]},
        {"lock_window": False, "rules": [
            {"event_name": "purchase", "coarse": "high"},
        ]},
    ],
}
