"""A claim's parts, one module each: its declaration check, its plan at a profile, its type.

:mod:`~protocol.parts.screen`, :mod:`~protocol.parts.training`,
:mod:`~protocol.parts.validation`, :mod:`~protocol.parts.arm`,
:mod:`~protocol.parts.pins`, :mod:`~protocol.parts.contrasts`,
:mod:`~protocol.parts.sequential`, :mod:`~protocol.parts.panel` and
:mod:`~protocol.parts.readings`, over :mod:`~protocol.parts.base` (the
refusal naming file and key, a profile's settings for one claim).
:mod:`protocol.declaration`, :mod:`protocol.plan` and
:mod:`protocol.plan_model` compose them.
"""
