// parquet-java (parquet-hadoop) worker for parquet-conformance: the JSON-lines protocol of
// docs/adapter-protocol.md on stdin / the original stdout; System.out is pointed at stderr so
// that nothing the library logs can corrupt the protocol stream. Rows are emitted as the
// canonical tokens of docs/manifest.md ("Values in expected/*.json").
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.LocalDate;
import java.util.HexFormat;
import java.util.Set;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

public final class ParquetJavaWorker {
  static final ObjectMapper JSON = new ObjectMapper();
  // Unchecked exceptions that mean the reader lost control, not that it refused the file.
  static final Set<String> CRASHES = Set.of("java.lang.NullPointerException",
      "java.lang.ArrayIndexOutOfBoundsException", "java.lang.IndexOutOfBoundsException",
      "java.lang.StringIndexOutOfBoundsException", "java.lang.NegativeArraySizeException",
      "java.lang.ClassCastException", "java.lang.ArithmeticException",
      "java.nio.BufferUnderflowException", "java.nio.BufferOverflowException");

  public static void main(String[] args) throws Exception {
    PrintStream proto = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    String version = args.length > 0 ? args[0] : "unknown";
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      JsonNode req = JSON.readTree(line);
      String cmd = req.path("cmd").asText();
      ObjectNode resp = JSON.createObjectNode();
      resp.put("id", req.path("id").asText());
      if (cmd.equals("start")) {
        resp.put("ok", true).put("adapter", "parquet-java").put("implementation", "parquet-java (parquet-hadoop)")
            .put("version", version).putArray("roles").add("legacy");
      } else if (cmd.equals("read")) {
        read(req.path("path").asText(), resp);
      } else if (cmd.equals("stop")) {
        return;
      }
      proto.println(JSON.writeValueAsString(resp));
    }
  }

  static void read(String path, ObjectNode resp) {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(Paths.get(path)))) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      ArrayNode columns = JSON.createArrayNode();
      for (Type f : schema.getFields()) columns.add(f.getName());
      ArrayNode rows = JSON.createArrayNode();
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> records = new ColumnIOFactory().getColumnIO(schema)
            .getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          Group g = records.read();
          ArrayNode row = rows.addArray();
          for (int c = 0; c < schema.getFieldCount(); c++) row.add(field(g, c, schema.getType(c)));
        }
      }
      resp.put("outcome", "read").set("columns", columns);
      resp.set("rows", rows);
    } catch (Throwable t) {
      String cls = t.getClass().getName();
      String outcome = t instanceof OutOfMemoryError ? "oom"
          : (t instanceof Error || CRASHES.contains(cls)) ? "crash" : "rejected";
      StackTraceElement[] st = t.getStackTrace();
      String where = st.length > 0 ? " (at " + st[0] + ")" : "";
      resp.put("outcome", outcome).putObject("error").put("class", cls).put("message", t.getMessage() + where);
    }
  }

  static JsonNode field(Group g, int i, Type type) {
    int n = g.getFieldRepetitionCount(i);
    if (type.isRepetition(Type.Repetition.REPEATED)) {
      ArrayNode list = JSON.createArrayNode();
      for (int r = 0; r < n; r++) list.add(value(g, i, r, type));
      return list;
    }
    return n == 0 ? JSON.nullNode() : value(g, i, 0, type);
  }

  static JsonNode value(Group g, int i, int r, Type type) {
    if (type.isPrimitive()) return primitive(g, i, r, type.asPrimitiveType());
    Group child = g.getGroup(i, r);
    GroupType gt = type.asGroupType();
    if (gt.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
      // three-level list: <list> (LIST) { repeated group list { <element> } }
      ArrayNode list = JSON.createArrayNode();
      Type repeated = gt.getType(0);
      for (int k = 0; k < child.getFieldRepetitionCount(0); k++) {
        if (repeated.isPrimitive()) {
          list.add(primitive(child, 0, k, repeated.asPrimitiveType()));
        } else {
          Group item = child.getGroup(0, k);
          GroupType it = repeated.asGroupType();
          list.add(it.getFieldCount() == 1 ? field(item, 0, it.getType(0)) : struct(item, it));
        }
      }
      return list;
    }
    return struct(child, gt);
  }

  static JsonNode struct(Group g, GroupType gt) {
    ObjectNode fields = JSON.createObjectNode();
    for (int k = 0; k < gt.getFieldCount(); k++) fields.set(gt.getFieldName(k), field(g, k, gt.getType(k)));
    ObjectNode out = JSON.createObjectNode();
    out.set("struct", fields);
    return out;
  }

  static ObjectNode token(String tag, String value) {
    return JSON.createObjectNode().put(tag, value);
  }

  static JsonNode primitive(Group g, int i, int r, PrimitiveType t) {
    LogicalTypeAnnotation ann = t.getLogicalTypeAnnotation();
    int scale = ann instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d ? d.getScale() : -1;
    switch (t.getPrimitiveTypeName()) {
      case BOOLEAN:
        return JSON.getNodeFactory().booleanNode(g.getBoolean(i, r));
      case INT32: {
        int v = g.getInteger(i, r);
        if (ann instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation)
          return token("date", LocalDate.ofEpochDay(v).toString());
        if (scale >= 0) return token("dec", new BigDecimal(BigInteger.valueOf(v), scale).toPlainString());
        return token("int", Integer.toString(v));
      }
      case INT64: {
        long v = g.getLong(i, r);
        if (ann instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts) {
          switch (ts.getUnit()) {
            case MILLIS: return token("ts_us", Long.toString(v * 1000));
            case MICROS: return token("ts_us", Long.toString(v));
            default: return token("ts_us", Long.toString(Math.floorDiv(v, 1000)));
          }
        }
        if (scale >= 0) return token("dec", new BigDecimal(BigInteger.valueOf(v), scale).toPlainString());
        return token("int", Long.toString(v));
      }
      case FLOAT:
        return token("float", Double.toString((double) g.getFloat(i, r)));
      case DOUBLE:
        return token("float", Double.toString(g.getDouble(i, r)));
      default: {
        Binary b = g.getBinary(i, r);
        if (scale >= 0) return token("dec", new BigDecimal(new BigInteger(b.getBytes()), scale).toPlainString());
        if (ann instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation)
          return JSON.getNodeFactory().textNode(b.toStringUsingUTF8());
        return token("bin", HexFormat.of().formatHex(b.getBytes()));
      }
    }
  }
}
