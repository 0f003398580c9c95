"""Web visits are raw rows (docs/web.md, docs/privacy.md "Retention"): each app's
`raw_retention_days` removes them as it removes archived clicks and events. Web ids stay, as
installs do: a web id is the web app's install, and its first visit's attribution lives on it.
"""

from tracking.retention import Stored
from web.models import Visit

VISITS = Stored("web_visits", Visit, "received_at")
