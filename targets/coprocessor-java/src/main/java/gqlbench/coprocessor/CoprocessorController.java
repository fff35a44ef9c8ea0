// The coprocessor's HTTP endpoints (CONTRACT.md): `GET /health`, `GET /stats`, and one POST
// per customization, each configured in the router for one stage.
//
// The endpoints do not look at the payload's `stage`: the router's config sends each of them
// one stage only (`SubgraphRequest`, `RouterResponse`, `RouterRequest`, spelled as the router
// sends them), and a stage test could only make the work silently not happen (the original
// study's Java coprocessor tested for "SubgraphResponse" in the SubgraphRequest test and so
// never added its header). The Go, Node and Python coprocessors do the same.
package gqlbench.coprocessor;

import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.UUID;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class CoprocessorController {

    // The answer's body when a token is refused: a JSON string holding a GraphQL response.
    static final String REJECT_BODY = "{\"errors\":[{\"message\":\"invalid token\"}]}";

    private static final String[] GUID_NAMES = new String[10];

    static {
        for (int i = 0; i < GUID_NAMES.length; i++) {
            GUID_NAMES[i] = "guid-" + (i + 1);
        }
    }

    private final ObjectReader reader;
    private final ObjectWriter writer;
    private final TokenVerifier verifier;
    private final Served served;

    public CoprocessorController(ObjectMapper mapper, TokenVerifier verifier, Served served) {
        // Spring Boot's own ObjectMapper. Jackson reads a first JSON value and ignores what
        // follows by default; trailing text makes the payload not JSON, as for the others.
        this.reader = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.writer = mapper.writer();
        this.verifier = verifier;
        this.served = served;
    }

    // String bodies get a Content-Length (gqlbench's probe reads no chunked body).
    @GetMapping("/health")
    public ResponseEntity<String> health() {
        return ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN).body("ok");
    }

    @GetMapping("/stats")
    public ResponseEntity<String> stats() {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(served.json());
    }

    /** SubgraphRequest: adds `source: coprocessor`. */
    @PostMapping("/static-subgraph")
    public ResponseEntity<byte[]> staticSubgraph(InputStream body) {
        ObjectNode payload = read(body);
        if (payload == null) {
            return notJson();
        }
        headers(payload).putArray("source").add("coprocessor");
        served.staticSubgraph.incrementAndGet();
        return write(payload);
    }

    /** RouterResponse: sets guid-1 .. guid-10 to fresh UUID v4s. */
    @PostMapping("/guid-response")
    public ResponseEntity<byte[]> guidResponse(InputStream body) {
        ObjectNode payload = read(body);
        if (payload == null) {
            return notJson();
        }
        ObjectNode headers = headers(payload);
        for (String name : GUID_NAMES) {
            // UUID.randomUUID(): a version 4 UUID from the JDK's SecureRandom.
            headers.putArray(name).add(UUID.randomUUID().toString());
        }
        served.guidResponse.incrementAndGet();
        return write(payload);
    }

    /** RouterRequest: client name and version from the token's claims, or a 401 break. */
    @PostMapping("/client-awareness")
    public ResponseEntity<byte[]> clientAwareness(InputStream body) {
        ObjectNode payload = read(body);
        if (payload == null) {
            return notJson();
        }
        served.clientAwareness.incrementAndGet();
        ObjectNode headers = headers(payload);
        TokenVerifier.Client client = verifier.verify(headers);
        if (client != null) {
            headers.putArray("apollographql-client-name").add(client.name());
            headers.putArray("apollographql-client-version").add(client.version());
        } else {
            served.rejected.incrementAndGet();
            payload.putObject("control").put("break", 401);
            payload.put("body", REJECT_BODY);
        }
        return write(payload);
    }

    /**
     * The router's payload as a JSON object whose `headers`, when present, is a map of
     * lower-case name -> array of strings; null when it is not one (answered 400). The body
     * is parsed straight from the request's stream, whatever its Content-Type (as the Go
     * coprocessor reads it): with `@RequestBody`, Spring would answer 415 for a Content-Type
     * it has no converter for, and rebuild a form-encoded body from its parameters.
     */
    private ObjectNode read(InputStream body) {
        JsonNode node;
        try {
            node = reader.readTree(body);
        } catch (IOException e) {
            return null;
        }
        // An empty body is no node (null or MissingNode), `null` a NullNode.
        if (!(node instanceof ObjectNode payload)) {
            return null;
        }
        JsonNode headers = payload.get("headers");
        if (headers == null || headers.isNull()) {
            // Answered with an empty map to add to, as the Go coprocessor does.
            payload.putObject("headers");
        } else if (!validHeaders(headers)) {
            return null;
        }
        // Hive Router's payloads carry no `control` but need one back; Apollo's carry it.
        if (!payload.has("control")) {
            payload.put("control", "continue");
        }
        return payload;
    }

    /** Whether `headers` has the router's shape (the Go coprocessor decodes it as such). */
    private static boolean validHeaders(JsonNode headers) {
        if (!headers.isObject()) {
            return false;
        }
        for (Iterator<JsonNode> it = headers.elements(); it.hasNext(); ) {
            JsonNode values = it.next();
            if (values.isNull()) {
                continue;
            }
            if (!values.isArray()) {
                return false;
            }
            for (JsonNode v : values) {
                if (!v.isTextual() && !v.isNull()) {
                    return false;
                }
            }
        }
        return true;
    }

    private static ObjectNode headers(ObjectNode payload) {
        return (ObjectNode) payload.get("headers");
    }

    /**
     * The payload as the answer. Serialized to bytes first so that the answer has a
     * Content-Length, as the other coprocessors' answers do (Spring's Jackson converter
     * streams, which Tomcat sends chunked).
     */
    private ResponseEntity<byte[]> write(ObjectNode payload) {
        byte[] out;
        try {
            out = writer.writeValueAsBytes(payload);
        } catch (JsonProcessingException e) {
            return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR)
                    .contentType(MediaType.TEXT_PLAIN).body(e.getMessage().getBytes());
        }
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(out);
    }

    private static ResponseEntity<byte[]> notJson() {
        return ResponseEntity.badRequest().contentType(MediaType.TEXT_PLAIN)
                .body("payload is not a JSON object".getBytes());
    }
}
