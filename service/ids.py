"""The public ids of listings: ``disp_<n>``, ``doc_<n>``, ``deal_<n>`` (n of 1 to 18 digits).

One pattern per kind, read by the lookups (an id of another shape is simply not found) and by
import validation (an id of another shape is refused).
"""

import re

DISPENSARY_ID = re.compile(r"^disp_[0-9]{1,18}$")
DOCTOR_ID = re.compile(r"^doc_[0-9]{1,18}$")
DEAL_ID = re.compile(r"^deal_[0-9]{1,18}$")
