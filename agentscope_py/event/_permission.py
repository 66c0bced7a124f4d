"""What a user answers when asked to confirm tool calls: ``ConfirmResult`` and ``PermissionRule``.

These are not events; ``UserConfirmResultEvent`` carries them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from .._blocks import ToolUseBlock
from .._checks import check_enum
from .._enums import SpelledEnum
from .._fields import checked_fields, register_converter
from .._serializable import JsonSerializable
from ._base import optional_instance, to_tuple

__all__ = ["ConfirmResult", "PermissionBehavior", "PermissionRule"]


class PermissionBehavior(SpelledEnum):
    """What a permission rule decides.  Lower-case values; input may be in any case of ASCII letters."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"
    PASSTHROUGH = "passthrough"

    @classmethod
    def _missing_(cls, value: object) -> Any:
        # PermissionBehavior("ALLOW") is PermissionBehavior.ALLOW, as the decoder reads it (see _wire)
        member = _BY_LOWER_VALUE.get(value.lower()) if isinstance(value, str) and value.isascii() else None
        return super()._missing_(value) if member is None else member


_BY_LOWER_VALUE = {member.value: member for member in PermissionBehavior}


def _check_behavior(value: object, arg: str) -> PermissionBehavior:
    return check_enum(value, PermissionBehavior, arg)


register_converter("PermissionBehavior", (PermissionBehavior,), _check_behavior)


@attrs.frozen(field_transformer=checked_fields)
class PermissionRule(JsonSerializable):
    """A standing decision for a tool: ``PermissionRule("bash", "ls *", PermissionBehavior.ALLOW, "user")``.

    ``rule_content`` narrows the rule to matching arguments (``None``: every call);
    ``source`` says where the rule comes from (``"user"``, ``"project"``, ``"session"`` …).
    """

    tool_name: str
    rule_content: str | None
    behavior: PermissionBehavior
    source: str


register_converter("ToolUseBlock | None", (type(None), ToolUseBlock), optional_instance(ToolUseBlock, "a ToolUseBlock"))


def _rules(value: Iterable[PermissionRule] | None) -> tuple[PermissionRule, ...] | None:
    # None and () differ on the wire: Java writes "rules": null for a result without rules.
    return None if value is None else to_tuple(value, PermissionRule, "ConfirmResult.rules")


@attrs.frozen(field_transformer=checked_fields)
class ConfirmResult(JsonSerializable):
    """The user's answer about one tool call: confirmed or not, and optionally rules to remember."""

    confirmed: bool
    tool_call: ToolUseBlock | None
    rules: tuple[PermissionRule, ...] | None = attrs.field(default=None, converter=_rules)
