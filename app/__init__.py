"""The application, the top floor (above the reports): the command line, the run job, fuzz, bisect and version
matrices, corpus import, skip overhead and the pytest plugin; each judges through conformance/harness/judge.py."""
