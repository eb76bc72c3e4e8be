"""Formatters: they turn computed facts into text, JSON and other formats, and
never compute a number themselves."""
