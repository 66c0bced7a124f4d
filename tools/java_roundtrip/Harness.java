import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agentscope.core.event.*;
import io.agentscope.core.message.*;
import io.agentscope.core.model.ChatUsage;
import io.agentscope.core.permission.PermissionBehavior;
import io.agentscope.core.permission.PermissionRule;
import io.agentscope.core.util.JacksonJsonCodec;
import io.agentscope.core.util.JsonCodec;
import io.agentscope.core.util.JsonUtils;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Puts JSON through the real AgentScope Java message and event classes, for
 * tools/java_roundtrip/roundtrip.py. One JSON object per line in and out.
 *
 * <pre>
 * java Harness roundtrip [--plain-mapper]   stdin:  {"kind": "Msg", "id": "...", "json": "...document text..."}
 *                                           stdout: {"id", "java_class", "json"} or {"id", "error"}, plus the notes below
 * java Harness build                        stdout: {"case", "kind", "java_class", "json_text"} per document
 *                                                   built with Java constructors and builders (or "error")
 * </pre>
 *
 * <p>roundtrip reads the document as a String with the framework's codec ({@code
 * JsonUtils.getJsonCodec()}, what AgentScope Java itself uses) and writes it back with {@code
 * codec.toJson}. A service on the wire deals in bytes, not Strings, and Jackson's byte reader and
 * writer differ from its String ones, so it also:
 *
 * <ul>
 *   <li>reads the document's UTF-8 bytes with the same ObjectMapper ("bytes_read_error" if that
 *       fails while the String read did not: Jackson's byte reader refuses an escaped surrogate
 *       in an object key);
 *   <li>writes with {@code writeValueAsBytes} ("bytes_json", base64, when those bytes are not the
 *       UTF-8 of the String: Jackson's byte writer escapes what its String writer keeps raw);
 *   <li>flags "string_not_utf8" when the String holds a lone surrogate, which {@code
 *       String.getBytes(UTF_8)} would turn into '?'.
 * </ul>
 *
 * <p>{@code --plain-mapper} uses a bare {@code new ObjectMapper()} instead of the framework
 * codec, as code that does not go through {@code JsonUtils} would (it fails on unknown keys).
 *
 * <p>Output is ASCII: the wrapper escapes non-ASCII characters (lone surrogates included), so the
 * documents inside reach Python exactly as Java held them.
 */
public final class Harness {
    /** Writes the line wrappers only; never the documents under test. */
    private static final ObjectMapper WRAPPER = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    private Harness() {}

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "US-ASCII");
        switch (mode) {
            case "roundtrip" -> {
                boolean plain = args.length > 1 && args[1].equals("--plain-mapper");
                roundTrip(plain ? new JacksonJsonCodec(new ObjectMapper()) : JsonUtils.getJsonCodec(), out);
            }
            case "build" -> new Builds(out).all();
            default -> {
                System.err.println("usage: java Harness roundtrip [--plain-mapper] | build");
                System.exit(2);
            }
        }
    }

    /** The classes a document can be read as, by the name the Python side uses. */
    private static Class<?> classOfKind(String kind) {
        return switch (kind) {
            case "Msg" -> Msg.class;
            case "ContentBlock" -> ContentBlock.class;
            case "Source" -> Source.class;
            case "ChatUsage" -> ChatUsage.class;
            case "AgentEvent" -> AgentEvent.class;
            case "ConfirmResult" -> ConfirmResult.class;
            case "PermissionRule" -> PermissionRule.class;
            default -> throw new IllegalArgumentException("unknown kind " + kind);
        };
    }

    /** An exception and its causes on one line: Jackson puts the useful part in a cause. */
    private static String describe(Throwable error) {
        StringBuilder text = new StringBuilder();
        Set<Throwable> seen = new HashSet<>();
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            if (text.length() > 0) text.append(" <- caused by: ");
            String message = String.valueOf(t.getMessage());
            if (message.length() > 600) message = message.substring(0, 600) + "...";
            text.append(t.getClass().getName()).append(": ").append(message);
        }
        return text.toString();
    }

    private static void roundTrip(JsonCodec codec, PrintStream out) throws Exception {
        ObjectMapper mapper = ((JacksonJsonCodec) codec).getObjectMapper();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            JsonNode request = WRAPPER.readTree(line);
            String text = request.get("json").asText();
            Class<?> type = classOfKind(request.get("kind").asText());
            ObjectNode result = WRAPPER.createObjectNode();
            result.put("id", request.get("id").asText());
            try {
                Object value = codec.fromJson(text, type);
                result.put("java_class", value.getClass().getName());
                String written = codec.toJson(value);
                result.put("json", written);
                byte[] bytes = mapper.writeValueAsBytes(value);
                if (!new String(bytes, StandardCharsets.UTF_8).equals(written)) {
                    result.put("bytes_json", Base64.getEncoder().encodeToString(bytes));
                }
                String viaUtf8 = new String(written.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
                if (!viaUtf8.equals(written)) {
                    result.put("string_not_utf8", true);
                }
            } catch (Exception e) {
                result.put("error", describe(e));
                out.println(WRAPPER.writeValueAsString(result));
                continue;
            }
            try {
                mapper.readValue(text.getBytes(StandardCharsets.UTF_8), type);
            } catch (Exception e) {
                result.put("bytes_read_error", describe(e));
            }
            out.println(WRAPPER.writeValueAsString(result));
        }
    }

    /**
     * Documents made the way Java code makes them: every class, every enum value, the optional
     * fields set and unset, and values Java holds that Python cannot (NaN, an int that wrapped).
     * Ids and timestamps the classes generate differ on every run.
     */
    private static final class Builds {
        private final PrintStream out;
        private final JsonCodec codec = JsonUtils.getJsonCodec();

        Builds(PrintStream out) {
            this.out = out;
        }

        private void emit(String kind, String caseName, Object value) throws Exception {
            ObjectNode line = WRAPPER.createObjectNode();
            line.put("case", caseName);
            line.put("kind", kind);
            line.put("java_class", value.getClass().getName());
            try {
                line.put("json_text", codec.toJson(value));
            } catch (Exception e) {
                line.put("error", describe(e));
            }
            out.println(WRAPPER.writeValueAsString(line));
        }

        /** An insertion-ordered map from alternating keys and values (Map.of refuses nulls). */
        private static Map<String, Object> map(Object... keysAndValues) {
            Map<String, Object> map = new LinkedHashMap<>();
            for (int i = 0; i < keysAndValues.length; i += 2) map.put((String) keysAndValues[i], keysAndValues[i + 1]);
            return map;
        }

        /** One value of every Java type that ends up in metadata, at the edges of its range. */
        private static Map<String, Object> everyValueKind() {
            List<Object> withNull = new ArrayList<>();
            withNull.add(null);
            withNull.add(1);
            return map(
                    "s", "str \u00e9 \ud83d\ude00 \u0000 \u001f \u2028",
                    "i", 42,
                    "l", 9007199254740993L,
                    "lmin", Long.MIN_VALUE,
                    "bi", new BigInteger("123456789012345678901234567890"),
                    "d", 0.1,
                    "dneg0", -0.0,
                    "d1e21", 1e21,
                    "dsmall", 5e-324,
                    "dmax", Double.MAX_VALUE,
                    "f", 1.1f,
                    "bd", new BigDecimal("1.10"),
                    "b", true,
                    "list", List.of(1, "a", false, List.of(), Map.of()),
                    "nullInList", withNull,
                    "obj", map("a", map("b", map("c", List.of(1, 2)))),
                    "empty", "",
                    "emptyObj", new HashMap<>());
        }

        void all() throws Exception {
            URLSource url = URLSource.builder().url("https://e.com/x.png").mimeType("image/png").build();
            URLSource urlNoMime = new URLSource("https://e.com/y");
            Base64Source png = Base64Source.builder().mediaType("image/png").data("iVBORw0KGgo=").build();
            emit("Source", "source/url", url);
            emit("Source", "source/url_no_mime", urlNoMime);
            emit("Source", "source/base64", png);

            ChatUsage usage = ChatUsage.builder().inputTokens(10).outputTokens(5).cachedTokens(2).time(1.5).build();
            emit("ChatUsage", "usage/builder", usage);
            emit("ChatUsage", "usage/three_arg_ctor", new ChatUsage(1, 2, 0.25));
            // totalTokens is input + output in Java int arithmetic: these two wrap around.
            emit("ChatUsage", "usage/total_wraps_up",
                    ChatUsage.builder().inputTokens(Integer.MAX_VALUE).outputTokens(1).time(1e-7).build());
            emit("ChatUsage", "usage/total_wraps_down",
                    ChatUsage.builder().inputTokens(Integer.MIN_VALUE).outputTokens(-1).time(-0.0).build());
            emit("ChatUsage", "usage/time_1e21", ChatUsage.builder().time(1e21).build());
            // A double Jackson writes as the string "NaN": Python has no number for it.
            emit("ChatUsage", "usage/time_nan", ChatUsage.builder().time(Double.NaN).build());

            Map<String, Object> everyValue = everyValueKind();
            TextBlock text = TextBlock.builder().text("hello \u4e16\u754c").build();
            ThinkingBlock thinking = ThinkingBlock.builder().thinking("hmm").build();
            ThinkingBlock thinkingWithMetadata =
                    ThinkingBlock.builder().thinking("hmm").metadata(map("reasoningDetails", List.of(map("k", 1)))).build();
            DataBlock data = DataBlock.builder().source(png).id("d1").name("x.png").build();
            DataBlock dataGeneratedId = DataBlock.builder().source(url).build();
            ImageBlock image = ImageBlock.builder().source(url).minPixels(10).maxPixels(20).build();
            ImageBlock imageMinimal = new ImageBlock(urlNoMime);
            AudioBlock audio = AudioBlock.builder()
                    .source(Base64Source.builder().mediaType("audio/wav").data("UklGRg==").build()).build();
            VideoBlock video = VideoBlock.builder().source(url).fps(2.5f).maxFrames(5).minPixels(1).maxPixels(2)
                    .totalPixels(3).build();
            VideoBlock videoNoSource = VideoBlock.builder().build();
            HintBlock hint = new HintBlock("h1", "consider X", "alice");
            Map<String, Object> nestedInput =
                    map("q", "kittens", "opts", map("n", 3, "deep", List.of(map("x", null))), "nul", null);
            ToolUseBlock call = ToolUseBlock.builder().id("call-1").name("search").input(nestedInput)
                    .content("{\"q\":\"kittens\"}").metadata(map("thoughtSignature", "c2ln"))
                    .state(ToolCallState.ASKING).build();
            ToolUseBlock callMinimal = new ToolUseBlock("call-2", "noop", null);
            ToolResultBlock result = ToolResultBlock.builder().id("call-1").name("search")
                    .output(List.of(text, data, image)).metadata(map("k", "v")).state(ToolResultState.SUCCESS).build();
            ToolResultBlock suspended = ToolResultBlock.suspended(call);
            // 50 results nested: deeper than Python's default DecodeLimits(max_depth=100).
            ToolResultBlock nested = ToolResultBlock.of("n0", "t", text);
            for (int i = 1; i < 50; i++) nested = ToolResultBlock.of("n" + i, "t", nested);

            emit("ContentBlock", "block/text", text);
            emit("ContentBlock", "block/text_lone_surrogates", TextBlock.builder().text("a\ud800b \udfff end\udbff").build());
            emit("ContentBlock", "block/thinking", thinking);
            emit("ContentBlock", "block/thinking_metadata", thinkingWithMetadata);
            emit("ContentBlock", "block/data", data);
            emit("ContentBlock", "block/data_generated_id", dataGeneratedId);
            emit("ContentBlock", "block/image", image);
            emit("ContentBlock", "block/image_minimal", imageMinimal);
            emit("ContentBlock", "block/audio", audio);
            emit("ContentBlock", "block/video", video);
            // fps is a Java Float: 1/3 is written as 0.33333334.
            emit("ContentBlock", "block/video_fps_third", VideoBlock.builder().source(url).fps(1f / 3f).build());
            emit("ContentBlock", "block/video_fps_nan", VideoBlock.builder().source(url).fps(Float.NaN).build());
            emit("ContentBlock", "block/video_fps_infinity",
                    VideoBlock.builder().source(url).fps(Float.POSITIVE_INFINITY).build());
            emit("ContentBlock", "block/video_no_source", videoNoSource);
            emit("ContentBlock", "block/hint", hint);
            emit("ContentBlock", "block/hint_nulls", new HintBlock(null, null));
            emit("ContentBlock", "block/tool_use", call);
            emit("ContentBlock", "block/tool_use_minimal", callMinimal);
            // byte[] in metadata: Jackson writes base64 text.
            emit("ContentBlock", "block/tool_use_bytes_signature", ToolUseBlock.builder().id("c").name("n")
                    .metadata(map("thoughtSignature", new byte[] {9, 8, 7})).build());
            emit("ContentBlock", "block/tool_result", result);
            emit("ContentBlock", "block/tool_result_text", ToolResultBlock.text("ok"));
            emit("ContentBlock", "block/tool_result_error", ToolResultBlock.error("call-9", "boom"));
            emit("ContentBlock", "block/tool_result_suspended", suspended);
            emit("ContentBlock", "block/tool_result_nested_50", nested);
            for (ToolCallState state : ToolCallState.values())
                emit("ContentBlock", "block/tool_use_state/" + state, call.withState(state));
            for (ToolResultState state : ToolResultState.values())
                emit("ContentBlock", "block/tool_result_state/" + state, result.withState(state));

            emit("Msg", "msg/user_every_value", UserMessage.builder().name("alice")
                    .content(List.of(text, data, image, audio, video)).metadata(everyValue).build());
            emit("Msg", "msg/user_ctor", new UserMessage("hi"));
            emit("Msg", "msg/system_ctor", new SystemMessage("sys", "be nice"));
            emit("Msg", "msg/assistant_every_block", AssistantMessage.builder().name("agent")
                    .content(List.of(thinkingWithMetadata, text, call, callMinimal, result, hint, data, image, audio,
                            video, videoNoSource, nested))
                    .usage(usage).metadata(map("_chat_usage", usage, "x", everyValue))
                    .generateReason(GenerateReason.TOOL_CALLS).build());
            emit("Msg", "msg/tool", ToolResultMessage.builder().result("call-1", "search", "res").result(suspended).build());
            emit("Msg", "msg/plain_no_role", Msg.builder().role(null).textContent("x").build());
            emit("Msg", "msg/plain_null_id", Msg.builder().id(null).role(MsgRole.ASSISTANT).textContent("x").build());
            emit("Msg", "msg/plain_default_role", Msg.builder().textContent("plain").build());
            emit("Msg", "msg/metadata_surrogate_keys", UserMessage.builder().textContent("k")
                    .metadata(map("\ud83d\ude00", 1, "lone\ud800", 2, "\udc00", "\ud800")).build());
            // Values Jackson writes in its own way: byte[] as base64, char as a string, NaN and
            // Infinity as strings, a TextBlock (declared Object) without its "type".
            emit("Msg", "msg/metadata_java_types", AssistantMessage.builder().textContent("x").metadata(map(
                    "bytes", new byte[] {1, 2, 3, (byte) 255}, "char", 'c', "short", (short) 7,
                    "nanDouble", Double.NaN, "infFloat", Float.POSITIVE_INFINITY, "textBlockObj", text)).build());
            for (GenerateReason reason : GenerateReason.values())
                emit("Msg", "msg/generate_reason/" + reason, new AssistantMessage("x").withGenerateReason(reason));
            for (MsgRole role : MsgRole.values())
                emit("Msg", "msg/builder_for_role/" + role, Msg.builderForRole(role).textContent("r").build());

            events(usage, thinking, text, call, callMinimal, data, image, result, suspended, nested, everyValue);

            PermissionRule rule = new PermissionRule("bash", "ls *", PermissionBehavior.ALLOW, "user");
            emit("ConfirmResult", "confirm/denied_with_rule", new ConfirmResult(false, call, List.of(rule)));
            emit("ConfirmResult", "confirm/null_call", new ConfirmResult(true, null));
            for (PermissionBehavior behavior : PermissionBehavior.values())
                emit("PermissionRule", "rule/" + behavior, new PermissionRule("t", "c", behavior, "s"));
        }

        private void event(String label, AgentEvent event) throws Exception {
            emit("AgentEvent", "event/" + event.getType() + (label.isEmpty() ? "" : "/" + label), event);
        }

        private void events(ChatUsage usage, ThinkingBlock thinking, TextBlock text, ToolUseBlock call,
                ToolUseBlock callMinimal, DataBlock data, ImageBlock image, ToolResultBlock result,
                ToolResultBlock suspended, ToolResultBlock nested, Map<String, Object> everyValue) throws Exception {
            Msg reply = AssistantMessage.builder().name("agent").content(List.of(thinking, text, call)).usage(usage).build();
            PermissionRule rule = new PermissionRule("bash", "ls *", PermissionBehavior.ALLOW, "user");
            PermissionRule ruleNoPattern = new PermissionRule("bash", null, PermissionBehavior.PASSTHROUGH, "session");
            event("", new AgentStartEvent("sess", "R", "agent"));
            event("nulls", new AgentStartEvent(null, "R", null));
            event("", new AgentEndEvent("R"));
            event("", new AgentResultEvent(reply));
            event("", new ModelCallStartEvent("M"));
            event("", new ModelCallEndEvent("M", usage));
            event("no_usage", new ModelCallEndEvent("M", null));
            event("", new TextBlockStartEvent("M", "text"));
            event("", new TextBlockDeltaEvent("M", "text", "Hel\u00e9\ud83d\ude00"));
            event("", new TextBlockEndEvent("M", "text"));
            event("", new ThinkingBlockStartEvent("M", "thinking"));
            event("", new ThinkingBlockDeltaEvent("M", "thinking", "hmm"));
            event("", new ThinkingBlockEndEvent("M", "thinking"));
            event("", new DataBlockStartEvent("M", "b1"));
            event("", new DataBlockDeltaEvent("M", "b1", "AAAA"));
            event("", new DataBlockEndEvent("M", "b1"));
            event("", new ToolCallStartEvent("M", "call-1", "search"));
            event("", new ToolCallDeltaEvent("M", "call-1", "search", "{\"q\":"));
            event("", new ToolCallEndEvent("M", "call-1", "search"));
            event("", new ToolResultStartEvent("A", "call-1", "search"));
            event("", new ToolResultTextDeltaEvent("A", "call-1", "search", "res").withMetadata(map("k", "v")));
            event("data", new ToolResultDataDeltaEvent("A", "call-1", "search", data));
            event("image", new ToolResultDataDeltaEvent("A", "call-1", "search", image));
            event("nested_50", new ToolResultDataDeltaEvent("A", "call-1", "search", nested));
            for (ToolResultState state : ToolResultState.values())
                event(state.name(), new ToolResultEndEvent("A", "call-1", "search", state));
            event("no_state", new ToolResultEndEvent("A", "call-1", "search", null));
            event("", new ExceedMaxItersEvent("", 10, 10));
            event("", new RequireUserConfirmEvent("A", List.of(call, callMinimal)));
            event("", new RequireExternalExecutionEvent("A", List.of(call)));
            event("", new UserConfirmResultEvent("A", List.of(
                    new ConfirmResult(true, call), new ConfirmResult(false, callMinimal, List.of(rule, ruleNoPattern)))));
            event("", new ExternalExecutionResultEvent("A", List.of(result, suspended)));
            for (GenerateReason reason : GenerateReason.values())
                event(reason.name(), new RequestStopEvent("stop", reason));
            event("default_reason", new RequestStopEvent("default"));
            event("", new SubagentExposedEvent("s1", "a1", "sess", "label"));
            event("nulls", new SubagentExposedEvent(null, null, null, null));
            event("", new HintBlockEvent("R", "b1", "alice", "hint text"));
            event("", new AllToolsDeniedEvent(List.of(call)));
            event("every_value", new CustomEvent("state_updated", everyValue));
            event("empty", new CustomEvent("empty"));
            event("source_and_metadata", new TextBlockDeltaEvent("M", "text", "x").withSource("main/researcher")
                    .withMetadataEntry("taskId", "t1").withMetadataEntry("parentSessionId", "p"));
        }
    }
}
