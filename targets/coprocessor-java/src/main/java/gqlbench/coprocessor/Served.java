// The calls served per endpoint since start, and the tokens refused: what `GET /stats`
// answers (gqlbench reads it around each trial for the coprocessor calls per request).
package gqlbench.coprocessor;

import java.util.concurrent.atomic.AtomicLong;

import org.springframework.stereotype.Component;

@Component
public class Served {

    // Atomics, not a lock: Tomcat serves requests on many threads at once.
    final AtomicLong staticSubgraph = new AtomicLong();
    final AtomicLong guidResponse = new AtomicLong();
    final AtomicLong clientAwareness = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();

    /** The counts as the JSON object of CONTRACT.md. */
    String json() {
        return "{\"static-subgraph\":" + staticSubgraph.get()
                + ",\"guid-response\":" + guidResponse.get()
                + ",\"client-awareness\":" + clientAwareness.get()
                + ",\"rejected\":" + rejected.get() + "}";
    }
}
