"""make bisect: bisect (the driver, python3 -m ci.bisect.bisect) and judge
(each step's verdict). Imported as ci.bisect, never as a top-level
`bisect`, which is the standard library's."""
