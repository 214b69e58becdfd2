"""The words of every choice and bounding-volume kind, read from the core's registries
(names only: nothing here runs a query), for the widgets, the command line and the lessons."""
