"""The key events of replayed games, and the words that tell them.

- :mod:`~strat_tools.engine.events.key_events`: battles, first capture, big losses, rescues
  and the end, found for many games at once (:class:`EventBatch`);
- :mod:`~strat_tools.engine.events.event_kinds`: the kinds of key event, each with what it
  means (importing nothing, so that the command line offers them without NumPy);
- :mod:`~strat_tools.engine.events.event_words`: the words of the events' ``detail``
  sentences, one vocabulary chosen by NumPy and joined by Arrow.
"""
