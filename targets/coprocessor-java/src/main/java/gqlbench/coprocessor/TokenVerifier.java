// Client awareness's check of `authentication: Bearer <token>`: the token is verified as an
// HS256 JWT with jjwt and its claims client_name and client_version are read.
package gqlbench.coprocessor;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jsonwebtoken.Claims;
import io.jsonwebtoken.Jws;
import io.jsonwebtoken.JwtException;
import io.jsonwebtoken.JwtParser;
import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.security.Keys;
import org.springframework.stereotype.Component;

@Component
public class TokenVerifier {

    /** The claims the coprocessor copies into the client headers. */
    public record Client(String name, String version) {
    }

    private static final String BEARER = "Bearer ";

    // jjwt's parser is immutable and thread-safe: one for the process.
    private final JwtParser parser;

    public TokenVerifier() {
        // As the Go coprocessor: an unset or empty variable means the default.
        String secret = System.getenv("GQLBENCH_JWT_SECRET");
        if (secret == null || secret.isEmpty()) {
            secret = "apollo";
        }
        this.parser = Jwts.parser().verifyWith(Keys.hmacShaKeyFor(hmacKey(secret))).build();
    }

    /**
     * The key bytes jjwt accepts for a secret. jjwt refuses HS256 keys shorter than 256 bits
     * (WeakKeyException, when verifying too), and the benchmark's secret is the 6 bytes
     * "apollo". HMAC (RFC 2104) pads every key shorter than the hash's block size (64 bytes
     * for SHA-256) with zero bytes before use, so the secret padded with zeros to 32 bytes
     * gives exactly the same MACs: the same tokens verify, and every other one fails.
     */
    static byte[] hmacKey(String secret) {
        byte[] raw = secret.getBytes(StandardCharsets.UTF_8);
        return raw.length >= 32 ? raw : Arrays.copyOf(raw, 32);
    }

    /**
     * The client of a verified token in the router's headers (lower-case name -> values), or
     * null for a missing, malformed or badly signed token, or one without the two claims.
     */
    public Client verify(ObjectNode headers) {
        JsonNode values = headers.get("authentication");
        if (values == null || !values.isArray() || values.isEmpty() || !values.get(0).isTextual()) {
            return null;
        }
        String value = values.get(0).textValue();
        if (!value.startsWith(BEARER)) {
            return null;
        }
        Jws<Claims> jws;
        try {
            // Signed tokens only: jjwt refuses unsecured ones (alg none) here.
            jws = parser.parseSignedClaims(value.substring(BEARER.length()));
        } catch (JwtException | IllegalArgumentException e) {
            // Malformed, badly signed, expired, or empty: all are "invalid token".
            return null;
        }
        // HS256 only, as the other coprocessors limit it (a secret of 48+ bytes would let jjwt
        // accept HS384 too).
        if (!"HS256".equals(jws.getHeader().getAlgorithm())) {
            return null;
        }
        Object name = jws.getPayload().get("client_name");
        Object version = jws.getPayload().get("client_version");
        if (name instanceof String n && version instanceof String v) {
            return new Client(n, v);
        }
        return null;
    }
}
