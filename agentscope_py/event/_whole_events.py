"""What the events that stream no block mean for a reply: a block sent whole (a hint, the block
of a content-block ``CustomEvent``), the reply's outcome (the generate reason events name, the
agent's own result), and the events no message holds.

``MessageAssembler`` inherits these handlers; its table in ``_assembler`` says which event
class each one serves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._blocks import ContentBlock, HintBlock, ToolUseBlock
from .._checks import describe
from .._enums import GenerateReason, ToolCallState
from .._frozen import thawed
from .._messages import Msg
from .._role_messages import AssistantMessage
from ..errors import DecodeError
from ._accumulators import WholeBlock
from ._anomalies import AnomalyKind, describe_event
from ._base import AgentEvent
from ._block_events import HintBlockEvent
from ._delta_runs import DeltaRuns
from ._lifecycle import AgentResultEvent, CustomEvent
from ._reply_state import replay_mark
from ._stream_keys import CONTENT_BLOCK_EVENT, REQUEST_KEYS

__all__ = ["WholeEventHandlers"]


class WholeEventHandlers(DeltaRuns):
    """The handlers of events that stream no block; ``MessageAssembler`` inherits them."""

    def _on_hint(self, event: HintBlockEvent, _: None) -> list[AssistantMessage]:
        # AgentScope Java's harness streams a hint under its session's reply id, the same in every
        # reply of the session: inside an agent's reply, a hint belongs to it whatever its reply id.
        # Routed by its reply id when that is a completed reply's (a late hint), or its source has no
        # reply open (a bare model call's hint).
        source, reply_id = event.source, event.reply_id
        if source in self._agent_replies and (source, reply_id) not in self._completed:
            reply = self._route_by_source(event)
        else:
            reply = self._route(event, reply_id)
        if reply is not None:
            reply.blocks.append(WholeBlock(HintBlock(event.block_id, event.hint, event.hint_source)))
            reply.cached = None
        return []

    def _on_custom(self, event: CustomEvent, _: None) -> list[AssistantMessage]:
        if event.name != CONTENT_BLOCK_EVENT:
            return []  # application events: not part of any message
        reply_id = event.value.get("replyId")
        malformed = reply_id is not None and not isinstance(reply_id, str)
        problem = f"{describe_event(event)}: replyId must be a string"
        if malformed and self._agent_replies.get(event.source) is None and self._latest_bare_reply(event.source) is None:
            self._report(AnomalyKind.MALFORMED_EVENT, problem, event)  # and OUTSIDE_REPLY below: both are true
        reply = self._route_by_source(event) if malformed or reply_id is None else self._route(event, reply_id)
        if reply is None:  # also a replay: its problem was reported when it first came
            return []
        if malformed:  # the block is applied all the same, to the source's reply
            self._refuse(AnomalyKind.MALFORMED_EVENT, problem, event, reply)
        try:
            block = ContentBlock.from_dict(thawed(event.value.get("block")))
        except DecodeError as error:
            self._refuse(
                AnomalyKind.MALFORMED_EVENT, f"{describe_event(event)}: its block is unreadable: {error}", event, reply
            )
            return []
        reply.blocks.append(WholeBlock(block))
        reply.cached = None
        return []

    def _on_generate_reason(self, event: Any, reason: GenerateReason | None) -> list[AssistantMessage]:
        # The last event that names a reason decides it (Java sends RequireUserConfirmEvent, then
        # RequestStopEvent with the same reason), unless the run's result stated one.
        reply = self._route_by_source(event)
        if reply is None:
            return []
        # What changes nothing leaves the cached message: a snapshot stays the same object.
        stated = event.generate_reason if reason is None else reason
        if not reply.reason_from_result:
            reply.reason_lapses = reason is GenerateReason.ALL_TOOLS_DENIED  # an AllToolsDeniedEvent
            if stated is not reply.reason:
                reply.reason, reply.cached = stated, None
        request_key = REQUEST_KEYS.get(reason)
        if request_key is not None and event.reply_id:  # "" names no request: Java's own "no id"
            reply.add_request(request_key, event.reply_id)
        for listed, call in reply.named_calls(getattr(event, "tool_calls", ())):
            # Java streams no state for the calls that wait, and lists them as the model made them,
            # PENDING: those waiting for the user are ASKING in its final message.
            asking = reason is GenerateReason.PERMISSION_ASKING and listed.state is ToolCallState.PENDING
            state = ToolCallState.ASKING if asking else listed.state
            if not call.state_given and state is not call.state:
                call.state, call.built, reply.cached = state, None, None
        return []

    def _on_agent_result(self, event: AgentResultEvent, _: None) -> list[AssistantMessage]:
        # Java's own final message, what its call() returns.  Its blocks are not the reply's (Java's
        # holds the last model call's only), but a generate reason it states and its calls' states are
        # what the run ended with, where the events said otherwise or nothing: a run stopped by a hook
        # after it asked for external execution, a summary interrupted after the iterations ran out,
        # INTERRUPTED and STRUCTURED_OUTPUT (stated only here), a call the permission check let
        # through (ALLOWED).  A result stating none leaves the events' reason: a producer may not write it.
        result = event.result
        reply = self._agent_replies.get(event.source)
        if reply is None:  # an agent's result, with no reply of the agent's open (a bare model call is none)
            if not (self._replayed_inside_open_reply(event) or self._completed_before(event, replay_mark(event))):
                self._report(
                    AnomalyKind.OUTSIDE_REPLY, f"{describe_event(event)} arrived while its source had no open reply", event
                )
            return []
        # ``_route_by_source`` records the event's id; a replay changes nothing.
        if result is None or self._route_by_source(event) is not reply:
            return []
        reason: GenerateReason | None = result.get_generate_reason()
        if reason is GenerateReason.MODEL_STOP:
            # Stated, it wins as any other does; as the default, it is written nowhere.
            stated = result.metadata.get(Msg.METADATA_GENERATE_REASON) == GenerateReason.MODEL_STOP.name
            reason = None
        else:
            stated = True
        if stated:
            if reason is not reply.reason:
                reply.reason, reply.cached = reason, None
            reply.reason_from_result, reply.reason_lapses = True, False
        for block, call in reply.named_calls(result.get_content_blocks(ToolUseBlock)):
            if not call.state_given and block.state is not call.state:
                call.state, call.built, reply.cached = block.state, None, None
        return []

    def _on_other(self, event: AgentEvent, _: None) -> list[AssistantMessage]:
        return []  # confirmations and sub-agent notices: not part of the message

    def _on_unknown(self, event: object, _: None) -> list[AssistantMessage]:
        # The wire form given as it came (a parsed document, its text), or the message itself: the way
        # to events is one call away.
        if isinstance(event, (Mapping, str, bytes)):
            hint = "; decode it first with AgentEvent.from_dict or AgentEvent.from_json"
        elif isinstance(event, Msg):
            hint = "; events_from_message(msg) gives the events that stream a message"
        else:
            hint = ""
        if isinstance(event, AgentEvent):  # a subclass of no event class the assembler handles
            what, kept = describe_event(event), event
        else:  # its type says more than an event's fields, which it has none of
            what, kept = describe(event), None
        self._report(AnomalyKind.UNKNOWN_EVENT, f"{what} is not an event this assembler knows; dropped{hint}", kept)
        return []
