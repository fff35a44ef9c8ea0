// The authors workload (targets/_node/authors.mjs): 20 authors x 3 books from Data.java and an
// `md5` of the author's name computed on every request, the workload's unit of resolver work.
package gqlbench.springgraphql;

import gqlbench.springgraphql.Data.Author;
import java.util.List;
import org.springframework.graphql.data.method.annotation.QueryMapping;
import org.springframework.graphql.data.method.annotation.SchemaMapping;
import org.springframework.stereotype.Controller;

@Controller
public class AuthorsController {

  @QueryMapping
  public List<Author> authors() {
    return Data.AUTHORS;
  }

  @SchemaMapping(typeName = "Author")
  public String md5(Author author) {
    return Data.md5(author.name());
  }
}
