// parquet-java (parquet-hadoop) worker for parquet-conformance: the JSON-lines protocol of
// docs/adapter-protocol.md on stdin / the original stdout; System.out is pointed at stderr so
// that nothing the library logs can corrupt the protocol stream. Rows are emitted as the
// canonical tokens of docs/manifest.md ("Values in expected/*.json"). `write` (the writer x reader matrix) takes the
// document parquet_java.py makes (a message type, the builder's options, the rows as JSON shaped like the schema)
// and writes it with ExampleParquetWriter, parquet-java's own Group API.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.crypto.ColumnDecryptionProperties;
import org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.parquet.crypto.keytools.KmsClient;
import org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

public final class ParquetJavaWorker {
  static final ObjectMapper JSON = new ObjectMapper();

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
      } else if (req.has("keys") && !cmd.equals("decrypt")) {  // docs/adapter-protocol.md#keys: ours
        resp.put("outcome", "harness-error").putObject("error").putNull("class")
            .put("message", "sent keys with " + cmd.substring(0, Math.min(cmd.length(), 40)) + ", which takes none");
      } else if (cmd.equals("read")) {
        read(req.path("path").asText(), resp, false, null);
      } else if (cmd.equals("crc")) {  // the rows, with the library's page checksum verification on
        read(req.path("path").asText(), resp, true, null);
      } else if (cmd.equals("decrypt")) {  // the rows, decrypted with the request's keys
        decrypt(req.path("path").asText(), req.path("keys"), resp);
      } else if (cmd.equals("statistics")) {
        statistics(req.path("path").asText(), resp);
      } else if (cmd.equals("page-index")) {
        pageIndex(req.path("path").asText(), resp);
      } else if (cmd.equals("bloom")) {
        bloom(req.path("path").asText(), resp);
      } else if (cmd.equals("write")) {
        write(req.path("source").asText(), req.path("path").asText(), resp);
      } else if (cmd.equals("stop")) {
        return;
      } else { // an operation this worker has no API for (docs/adapter-protocol.md#operations)
        resp.put("outcome", "unavailable").putObject("error").putNull("class")
            .put("message", "no operation " + cmd.substring(0, Math.min(cmd.length(), 40)));
      }
      proto.println(answer(resp));
    }
  }

  /** The corpus's test KMS (generators/parquet/encryption.py): a data key wrapped by XOR with its master key, the
   * master keys those of the request. parquet-java's key tools find it by class name and call it to unwrap the data
   * keys the file's key material holds; the decryption is the library's. */
  public static final class XorKms implements KmsClient {
    // The request's keys, read at each unwrap (parquet-java keeps the client, and with single wrapping no data key:
    // a key copied here in initialize() would outlive its request).
    static Map<String, byte[]> masterKeys = Map.of();
    static String failed;  // what the last read could not unwrap: ours, not the library's

    @Override
    public void initialize(Configuration conf, String kmsInstanceID, String kmsInstanceURL, String accessToken) {}

    @Override
    public String wrapKey(byte[] key, String masterKeyIdentifier) {
      return Base64.getEncoder().encodeToString(xor(key, masterKeyIdentifier));
    }

    @Override
    public byte[] unwrapKey(String wrappedKey, String masterKeyIdentifier) {
      return xor(Base64.getDecoder().decode(wrappedKey), masterKeyIdentifier);
    }

    static byte[] xor(byte[] key, String masterKeyIdentifier) {
      byte[] master = masterKeys.get(masterKeyIdentifier);
      if (master == null || master.length != key.length) {
        failed = "the test KMS has no master key " + masterKeyIdentifier + " of " + key.length + " bytes";
        throw new KeyAccessDeniedException(failed);
      }
      byte[] out = new byte[key.length];
      for (int i = 0; i < key.length; i++) out[i] = (byte) (key[i] ^ master[i]);
      return out;
    }
  }

  /** docs/adapter-protocol.md#keys: the request's master keys (kms.<id>) to the test KMS, then the read with the
   * decryption properties parquet-java's PropertiesDrivenCryptoFactory makes for the file (its key tools read the key
   * material the writer stored); or, where the request has data keys alone (footer, column.<path>), the read with
   * those keys given explicitly (FileDecryptionProperties.builder()). */
  static void decrypt(String path, JsonNode keys, ObjectNode resp) {
    Map<String, byte[]> masters = new HashMap<>();
    Map<ColumnPath, ColumnDecryptionProperties> columns = new HashMap<>();
    byte[][] footer = new byte[1][];
    try {  // ours: the keys the harness sent (its schema checked them)
      keys.fields().forEachRemaining(e -> {
        byte[] key = Base64.getDecoder().decode(e.getValue().asText());
        if (e.getKey().startsWith("kms.")) masters.put(e.getKey().substring(4), key);
        else if (e.getKey().equals("footer")) footer[0] = key;
        else if (e.getKey().startsWith("column.")) {
          ColumnPath column = ColumnPath.fromDotString(e.getKey().substring(7));
          columns.put(column, ColumnDecryptionProperties.builder(column).withKey(key).build());
        }
      });
      if (masters.isEmpty() && footer[0] == null) throw new IllegalArgumentException("sent no master or footer key");
    } catch (Throwable t) {
      error(resp, "harness-error", t);
      return;
    }
    if (masters.isEmpty()) {
      read(path, resp, false, () -> FileDecryptionProperties.builder().withFooterKey(footer[0])
          .withColumnKeys(columns).build());
      return;
    }
    XorKms.masterKeys = masters;
    Configuration conf = new Configuration(false);
    conf.set("parquet.encryption.kms.client.class", XorKms.class.getName());
    read(path, resp, false, () -> new PropertiesDrivenCryptoFactory().getFileDecryptionProperties(
        conf, new org.apache.hadoop.fs.Path(path)));
  }

  interface Decryption {
    FileDecryptionProperties properties() throws Exception;
  }

  static void read(String path, ObjectNode resp, boolean verifyChecksums, Decryption decryption) {
    // The library reads and assembles every record; what it raises is its outcome.
    MessageType schema;
    List<Group> groups = new ArrayList<>();
    ParquetReadOptions options;
    try {  // ours: the options, the decryption properties from the request's keys among them
      options = readOptions(verifyChecksums, decryption);
    } catch (Throwable t) {
      error(resp, "harness-error", t);
      return;
    }
    XorKms.failed = null;
    long t0 = System.nanoTime();
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(Paths.get(path)), options)) {
      schema = reader.getFooter().getFileMetaData().getSchema();
      readRecords(reader, schema, groups);
    } catch (Throwable t) {
      if (XorKms.failed != null) {  // the KMS is ours: the library only passed its error on
        error(resp, "harness-error", new IllegalStateException(XorKms.failed, t));
        return;
      }
      libraryFailed(resp, t, t0);  // a refusal, or what else (docs/adapters.md#error-taxonomy)
      return;
    }
    double librarySeconds = (System.nanoTime() - t0) / 1e9;
    // parquet-java's Group API (the only record API these jars have: parquet-avro is not among them) assembles records
    // with no LIST or MAP semantics: a repeated field comes back as repeated values, and which of them make a list's
    // elements or a map's pairs would be our conversion's choice, not the library's. Such a read is not judged
    // (docs/adapters.md#parquet-java); a failure to read it was the library's, above.
    String repeated = firstRepeated(schema, "");
    if (repeated != null) {
      resp.put("outcome", "harness-error").putObject("error").putNull("class").put("message", "not judged: the "
          + "schema has a repeated field (" + repeated + "), and parquet-java's Group API applies no LIST or MAP "
          + "semantics: its data would be our conversion's");
      resp.put("library_s", librarySeconds);
      return;
    }
    // Our conversion of what it returned into tokens (out of memory too: the library returned)
    String[] names = schema.getFields().stream().map(Type::getName).toArray(String[]::new);
    table(resp, names, librarySeconds, rows -> {
      for (Group g : groups) {
        ArrayNode row = rows.addArray();
        for (int c = 0; c < schema.getFieldCount(); c++) row.add(field(g, c, schema.getType(c)));
      }
    });
  }

  static ParquetReadOptions readOptions(boolean verifyChecksums, Decryption decryption) throws Exception {
    ParquetReadOptions.Builder options = ParquetReadOptions.builder().usePageChecksumVerification(verifyChecksums);
    return (decryption == null ? options : options.withDecryption(decryption.properties())).build();
  }

  static void write(String source, String path, ObjectNode resp) {
    JsonNode spec;
    try {
      spec = JSON.readTree(Files.readAllBytes(Paths.get(source))); // our document: a mistake in it is ours
    } catch (Throwable t) {
      error(resp, "harness-error", t);
      return;
    }
    JsonNode o = spec.path("options");
    // Options that older releases' Builder lacks, looked up: a profile asking for one is no write there
    Method statistics = option("withStatisticsEnabled", boolean.class);  // 1.15.0 on
    Method rowGroupRows = option("withRowGroupRowCountLimit", int.class);  // 1.16.0 on
    String lacking = o.has("statistics") && statistics == null ? "withStatisticsEnabled(boolean)"
        : o.has("rowGroupRows") && rowGroupRows == null ? "withRowGroupRowCountLimit(int)" : null;
    if (lacking != null) {
      resp.put("outcome", "unavailable").putObject("error").putNull("class")
          .put("message", "this parquet-java's ParquetWriter.Builder has no " + lacking);
      return;
    }
    long t0 = System.nanoTime();
    try {
      MessageType schema = MessageTypeParser.parseMessageType(spec.get("schema").asText());
      ExampleParquetWriter.Builder b = ExampleParquetWriter.builder(new LocalOutputFile(Paths.get(path)))
          .withType(schema).withWriteMode(ParquetFileWriter.Mode.OVERWRITE);
      if (o.has("codec")) b = b.withCompressionCodec(CompressionCodecName.valueOf(o.get("codec").asText()));
      if (o.path("v2").asBoolean(false)) b = b.withWriterVersion(ParquetProperties.WriterVersion.PARQUET_2_0);
      if (o.has("dictionary")) b = b.withDictionaryEncoding(o.get("dictionary").asBoolean());
      if (o.has("statistics")) b = (ExampleParquetWriter.Builder) statistics.invoke(b, o.get("statistics").asBoolean());
      if (o.has("rowGroupRows")) b = (ExampleParquetWriter.Builder) rowGroupRows.invoke(b, o.get("rowGroupRows").asInt());
      if (o.has("pageSize")) b = b.withPageSize(o.get("pageSize").asInt());
      if (o.has("pageRows")) b = b.withPageRowCountLimit(o.get("pageRows").asInt());
      SimpleGroupFactory groups = new SimpleGroupFactory(schema);
      try (ParquetWriter<Group> w = b.build()) {
        for (JsonNode row : spec.get("rows")) {
          Group g = groups.newGroup();
          fill(g, schema, row);
          w.write(g);
        }
      }
    } catch (Throwable t) {
      libraryError(resp, t);  // the read's rule (docs/adapters.md#error-taxonomy)
      resp.put("library_s", (System.nanoTime() - t0) / 1e9);
      return;
    }
    resp.put("outcome", "written").put("library_s", (System.nanoTime() - t0) / 1e9);
  }

  /** A ParquetWriter.Builder option, looked up so that the worker compiles against the jars of releases that lack it
   * (null there). */
  static Method option(String name, Class<?> type) {
    try {
      return ParquetWriter.Builder.class.getMethod(name, type);
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  /** A row (JSON shaped like the group: a repeated field is an array) into a Group of the writer's schema. */
  static void fill(Group g, GroupType type, JsonNode obj) {
    for (Type field : type.getFields()) {
      JsonNode v = obj.get(field.getName());
      if (v == null || v.isNull()) continue;
      List<JsonNode> values = new ArrayList<>();
      if (field.isRepetition(Type.Repetition.REPEATED)) v.forEach(values::add); else values.add(v);
      for (JsonNode x : values) {
        if (field.isPrimitive()) add(g, field.getName(), field.asPrimitiveType(), x);
        else fill(g.addGroup(field.getName()), field.asGroupType(), x);
      }
    }
  }

  static void add(Group g, String name, PrimitiveType t, JsonNode x) {
    switch (t.getPrimitiveTypeName()) {
      case INT32 -> g.add(name, x.asInt());
      case INT64 -> g.add(name, x.isTextual() ? Long.parseLong(x.asText()) : x.asLong());
      case BOOLEAN -> g.add(name, x.asBoolean());
      case FLOAT -> g.add(name, (float) number(x));
      case DOUBLE -> g.add(name, number(x));
      case BINARY, FIXED_LEN_BYTE_ARRAY -> g.add(name, x.isObject()
          ? Binary.fromConstantByteArray(HexFormat.of().parseHex(x.get("hex").asText()))
          : Binary.fromString(x.asText()));
      default -> throw new IllegalArgumentException("no value of type " + t);
    }
  }

  static double number(JsonNode x) {
    return x.isTextual() ? Double.parseDouble(x.asText()) : x.asDouble();
  }

  /** The `statistics` operation (docs/adapter-protocol.md#operations): every column chunk's Statistics as the
   * library gives them to its users (ColumnChunkMetaData.getStatistics: the min and max as values of the physical
   * type, none where it holds no non-null value). */
  static void statistics(String path, ObjectNode resp) {
    footerOperation(path, resp, new String[] {"row_group", "column", "min", "max"}, reader -> {
      List<Object[]> chunks = new ArrayList<>();  // row group, chunk, its statistics
      List<BlockMetaData> blocks = reader.getFooter().getBlocks();
      for (int rg = 0; rg < blocks.size(); rg++)
        for (ColumnChunkMetaData c : blocks.get(rg).getColumns()) chunks.add(new Object[] {rg, c, c.getStatistics()});
      return chunks;
    }, (chunks, rows) -> {
      for (Object[] chunk : chunks) {
        Statistics<?> s = (Statistics<?>) chunk[2];
        boolean bounds = s != null && !s.isEmpty() && s.hasNonNullValue();
        ArrayNode row = rows.addArray();
        row.add(token("int", chunk[0].toString())).add(((ColumnChunkMetaData) chunk[1]).getPath().toDotString());
        row.add(bounds ? bound(s.genericGetMin()) : JSON.nullNode());
        row.add(bounds ? bound(s.genericGetMax()) : JSON.nullNode());
      }
    });
  }

  /** The `page-index` operation (docs/adapter-protocol.md#operations): every page of every chunk with an offset
   * index, as the library reads them for its users (ParquetFileReader.readOffsetIndex, readColumnIndex). */
  static void pageIndex(String path, ObjectNode resp) {
    String[] names = {"row_group", "column", "page", "offset", "compressed_page_size", "first_row_index", "null_page",
        "null_count", "min", "max", "boundary_order"};
    footerOperation(path, resp, names, reader -> {
      List<Object[]> chunks = new ArrayList<>();  // row group, chunk, its offset index, its column index (or null)
      List<BlockMetaData> blocks = reader.getFooter().getBlocks();
      for (int rg = 0; rg < blocks.size(); rg++) {
        for (ColumnChunkMetaData c : blocks.get(rg).getColumns()) {
          OffsetIndex oi = reader.readOffsetIndex(c);
          if (oi != null) chunks.add(new Object[] {rg, c, oi, reader.readColumnIndex(c)});
        }
      }
      return chunks;
    }, (chunks, rows) -> {  // our conversion (a bound's PLAIN bytes as its value)
      for (Object[] chunk : chunks) {
        ColumnChunkMetaData c = (ColumnChunkMetaData) chunk[1];
        OffsetIndex oi = (OffsetIndex) chunk[2];
        ColumnIndex ci = (ColumnIndex) chunk[3];
        for (int page = 0; page < oi.getPageCount(); page++) {
          ArrayNode row = rows.addArray();
          row.add(token("int", chunk[0].toString())).add(c.getPath().toDotString());
          row.add(token("int", Integer.toString(page))).add(token("int", Long.toString(oi.getOffset(page))));
          row.add(token("int", Integer.toString(oi.getCompressedPageSize(page))));
          row.add(token("int", Long.toString(oi.getFirstRowIndex(page))));
          boolean nullPage = ci != null && ci.getNullPages().get(page);
          if (ci == null) row.addNull(); else row.add(nullPage);
          if (ci == null || ci.getNullCounts() == null) row.addNull();
          else row.add(token("int", Long.toString(ci.getNullCounts().get(page))));
          for (List<ByteBuffer> values : ci == null ? List.<List<ByteBuffer>>of() : List.of(ci.getMinValues(),
              ci.getMaxValues()))
            row.add(nullPage ? JSON.nullNode() : bound(plain(values.get(page), c.getPrimitiveType())));
          if (ci == null) row.addNull().addNull().addNull(); else row.add(ci.getBoundaryOrder().toString());
        }
      }
    });
  }

  /** The `bloom` operation (docs/adapter-protocol.md#operations): each chunk with a bloom filter
   * (ParquetFileReader.readBloomFilter) probed with its column's distinct values as the library reads them (an INT64
   * or a text column, at the top level), then each made absent (+2^40, "~" appended): whether the filter excludes
   * it (BloomFilter.findHash of BloomFilter.hash). */
  static void bloom(String path, ObjectNode resp) {
    List<Object[]> filtered = new ArrayList<>();  // row group, column, filter
    List<Group> groups = new ArrayList<>();
    MessageType schema;
    long t0 = System.nanoTime();
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(Paths.get(path)))) {
      schema = reader.getFooter().getFileMetaData().getSchema();
      List<BlockMetaData> blocks = reader.getFooter().getBlocks();
      for (int rg = 0; rg < blocks.size(); rg++)
        for (ColumnChunkMetaData c : blocks.get(rg).getColumns()) {
          BloomFilter f = reader.readBloomFilter(c);
          if (f != null) filtered.add(new Object[] {rg, c.getPath().toDotString(), f});
        }
      readRecords(reader, schema, groups);
    } catch (Throwable t) {
      libraryFailed(resp, t, t0);
      return;
    }
    java.util.Map<String, List<Object>> probes = new java.util.HashMap<>();
    try {  // the probes, from the values it read: ours
      for (Object[] chunk : filtered) probes.computeIfAbsent((String) chunk[1], k -> probesOf(groups, schema, k));
    } catch (Throwable t) {
      error(resp, "harness-error", t);
      return;
    }
    List<Object[]> rows = new ArrayList<>();  // row group, column, probe, excluded
    try {  // the library's filter answers each probe
      for (Object[] chunk : filtered) {
        BloomFilter f = (BloomFilter) chunk[2];
        for (Object v : probes.get((String) chunk[1])) {
          long hash = v instanceof Long n ? f.hash(n.longValue()) : f.hash(Binary.fromString((String) v));
          rows.add(new Object[] {chunk[0], chunk[1], v, !f.findHash(hash)});
        }
      }
    } catch (Throwable t) {
      libraryFailed(resp, t, t0);
      return;
    }
    double librarySeconds = (System.nanoTime() - t0) / 1e9;
    table(resp, new String[] {"row_group", "column", "value", "excluded"}, librarySeconds, out -> {
      for (Object[] r : rows) {
        ArrayNode row = out.addArray();
        row.add(token("int", r[0].toString())).add((String) r[1]);
        if (r[2] instanceof Long n) row.add(token("int", Long.toString(n))); else row.add((String) r[2]);
        row.add((Boolean) r[3]);
      }
    });
  }

  /** A top-level INT64 or text column's distinct non-null values as the library read them, sorted, then each made
   * absent in the same order (generators/parquet/operations.py probes). */
  static List<Object> probesOf(List<Group> groups, MessageType schema, String column) {
    int i = schema.getFieldIndex(column);
    PrimitiveType t = schema.getType(i).asPrimitiveType();
    boolean text = t.getPrimitiveTypeName() != PrimitiveType.PrimitiveTypeName.INT64;
    TreeSet<Object> present = new TreeSet<>();
    for (Group g : groups)
      if (g.getFieldRepetitionCount(i) > 0) present.add(text ? g.getBinary(i, 0).toStringUsingUTF8() : g.getLong(i, 0));
    List<Object> out = new ArrayList<>(present);
    for (Object v : present) out.add(v instanceof Long n ? (Object) (n + (1L << 40)) : v + "~");
    return out;
  }

  interface Rows {
    void fill(ArrayNode rows) throws Exception;
  }

  interface FooterCall<T> {
    T call(ParquetFileReader reader) throws Exception;
  }

  interface Conversion<T> {
    void fill(T got, ArrayNode rows) throws Exception;
  }

  /** An operation on what the library reads through an open file (`call`: what it raises is its outcome), answered
   * as a table of what it gave (`conversion`: ours, `table`). */
  static <T> void footerOperation(String path, ObjectNode resp, String[] names, FooterCall<T> call,
                                  Conversion<T> conversion) {
    long t0 = System.nanoTime();
    T got;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(Paths.get(path)))) {
      got = call.call(reader);
    } catch (Throwable t) {
      libraryFailed(resp, t, t0);
      return;
    }
    table(resp, names, (System.nanoTime() - t0) / 1e9, rows -> conversion.fill(got, rows));
  }

  /** An operation's answer: our conversion of what the library gave into the table's rows (a mistake here is ours,
   * a harness error, never the library's outcome). */
  static void table(ObjectNode resp, String[] names, double librarySeconds, Rows conversion) {
    try {
      ArrayNode rows = JSON.createArrayNode();
      conversion.fill(rows);
      ArrayNode columns = resp.putArray("columns");
      for (String name : names) columns.add(name);
      resp.put("outcome", "read").set("rows", rows);
      resp.put("library_s", librarySeconds);
    } catch (Throwable t) {
      error(resp, "harness-error", t);
    }
  }

  /** A bound's PLAIN bytes (without a length prefix) as a value of its physical type. */
  static Object plain(ByteBuffer raw, PrimitiveType t) {
    ByteBuffer b = raw.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    return switch (t.getPrimitiveTypeName()) {
      case BOOLEAN -> b.get(b.position()) != 0;
      case INT32 -> b.getInt(b.position());
      case INT64 -> b.getLong(b.position());
      case FLOAT -> b.getFloat(b.position());
      case DOUBLE -> b.getDouble(b.position());
      default -> Binary.fromConstantByteBuffer(b);
    };
  }

  /** A statistics bound as the value of its physical type, a float zero unsigned (docs/adapter-protocol.md#operations:
   * its sign says nothing, and parquet-java gives a +0 min as -0, as parquet.thrift's reading rules allow). */
  static JsonNode bound(Object v) {
    if (v instanceof Boolean b) return JSON.getNodeFactory().booleanNode(b);
    if (v instanceof Integer n) return token("int", Integer.toString(n));
    if (v instanceof Long n) return token("int", Long.toString(n));
    if (v instanceof Float f) return token("float", Double.toString(f == 0.0f ? 0.0 : (double) f));
    if (v instanceof Double d) return token("float", Double.toString(d == 0.0 ? 0.0 : d));
    if (v instanceof Binary b) return token("bin", HexFormat.of().formatHex(b.getBytes()));
    throw new IllegalStateException("a statistics value of " + v.getClass().getName());
  }

  /** Every record of every row group, as the library's Group API assembles them. */
  static void readRecords(ParquetFileReader reader, MessageType schema, List<Group> groups) throws Exception {
    PageReadStore pages;
    while ((pages = reader.readNextRowGroup()) != null) {
      RecordReader<Group> records = new ColumnIOFactory().getColumnIO(schema)
          .getRecordReader(pages, new GroupRecordConverter(schema));
      for (long i = 0; i < pages.getRowCount(); i++) groups.add(records.read());
    }
  }

  /** What the library raised, as its outcome, with the time it spent. */
  static void libraryFailed(ObjectNode resp, Throwable t, long t0) {
    libraryError(resp, t);
    resp.put("library_s", (System.nanoTime() - t0) / 1e9);
  }

  /** What the library threw, sorted by the rule; the rule or the message failing on it is ours: a harness error. */
  static void libraryError(ObjectNode resp, Throwable t) {
    try {
      error(resp, JavaErrors.outcome(t), t);
    } catch (Throwable ours) {
      resp.remove("error");
      resp.put("outcome", "harness-error").putObject("error").put("class", ours.getClass().getName())
          .put("message", "sorting the library's " + t.getClass().getName() + ": " + ours);
    }
  }

  /** The answer's line; one we cannot write (nested deeper than Jackson writes) is our harness error, never the
   * library's outcome (the worker would die, a crash). */
  static String answer(ObjectNode resp) throws Exception {
    try {
      return JSON.writeValueAsString(resp);
    } catch (Throwable t) {
      ObjectNode ours = JSON.createObjectNode().put("id", resp.path("id").asText()).put("outcome", "harness-error");
      ours.putObject("error").put("class", t.getClass().getName()).put("message", "writing the answer: " + t);
      return JSON.writeValueAsString(ours);
    }
  }

  /** The error, its top frame, and each cause on a line of its own (what the outcome was decided on). */
  static void error(ObjectNode resp, String outcome, Throwable t) {
    StringBuilder message = new StringBuilder(t.getMessage() + where(t));
    List<Throwable> chain = JavaErrors.chain(t);
    for (Throwable c : chain.subList(1, chain.size()))
      message.append("\ncaused by ").append(c.getClass().getName()).append(": ").append(c.getMessage()).append(where(c));
    resp.put("outcome", outcome).putObject("error").put("class", t.getClass().getName())
        .put("message", message.toString());
  }

  static String where(Throwable t) {
    StackTraceElement[] st = t.getStackTrace();
    return st.length > 0 ? " (at " + st[0] + ")" : "";
  }

  static JsonNode field(Group g, int i, Type type) {
    return g.getFieldRepetitionCount(i) == 0 ? JSON.nullNode() : value(g, i, 0, type);
  }

  static JsonNode value(Group g, int i, int r, Type type) {
    if (type.isPrimitive()) return primitive(g, i, r, type.asPrimitiveType());
    return struct(g.getGroup(i, r), type.asGroupType());
  }

  /** The path of the schema's first repeated field, or null where it has none. */
  static String firstRepeated(GroupType g, String path) {
    for (Type f : g.getFields()) {
      String at = path.isEmpty() ? f.getName() : path + "." + f.getName();
      if (f.isRepetition(Type.Repetition.REPEATED)) return at;
      if (!f.isPrimitive()) {
        String inner = firstRepeated(f.asGroupType(), at);
        if (inner != null) return inner;
      }
    }
    return null;
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

  static final long JULIAN_EPOCH = 2440588L;
  static final BigInteger NANOS_PER_DAY = BigInteger.valueOf(86_400_000_000_000L);

  static String unit(LogicalTypeAnnotation.TimeUnit u) {
    return switch (u) { case MILLIS -> "ms"; case MICROS -> "us"; default -> "ns"; };
  }

  static JsonNode primitive(Group g, int i, int r, PrimitiveType t) {
    LogicalTypeAnnotation ann = t.getLogicalTypeAnnotation();
    int scale = ann instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d ? d.getScale() : -1;
    boolean unsigned = ann instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation it && !it.isSigned();
    switch (t.getPrimitiveTypeName()) {
      case BOOLEAN:
        return JSON.getNodeFactory().booleanNode(g.getBoolean(i, r));
      case INT32: {
        int v = g.getInteger(i, r);
        if (ann instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation)
          return token("date", LocalDate.ofEpochDay(v).toString());
        if (ann instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation tm)
          return token("time_" + unit(tm.getUnit()), Integer.toString(v));
        if (scale >= 0) return token("dec", new BigDecimal(BigInteger.valueOf(v), scale).toPlainString());
        return token("int", unsigned ? Integer.toUnsignedString(v) : Integer.toString(v));
      }
      case INT64: {
        long v = g.getLong(i, r);
        if (ann instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts)
          return token("ts_" + unit(ts.getUnit()), Long.toString(v));
        if (ann instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation tm)
          return token("time_" + unit(tm.getUnit()), Long.toString(v));
        if (scale >= 0) return token("dec", new BigDecimal(BigInteger.valueOf(v), scale).toPlainString());
        return token("int", unsigned ? Long.toUnsignedString(v) : Long.toString(v));
      }
      case INT96: {
        // nanoseconds of the day (i64) and the Julian day (i32), little-endian: an instant, however far out
        ByteBuffer b = ByteBuffer.wrap(g.getInt96(i, r).getBytes()).order(ByteOrder.LITTLE_ENDIAN);
        long nanos = b.getLong(0);
        long day = (b.getInt(8) & 0xFFFFFFFFL) - JULIAN_EPOCH;
        return token("ts_ns", BigInteger.valueOf(day).multiply(NANOS_PER_DAY).add(BigInteger.valueOf(nanos))
            .toString());
      }
      case FLOAT:
        return token("float", Double.toString((double) g.getFloat(i, r)));
      case DOUBLE:
        return token("float", Double.toString(g.getDouble(i, r)));
      default: {
        Binary b = g.getBinary(i, r);
        byte[] bytes = b.getBytes();
        if (scale >= 0) return token("dec", new BigDecimal(new BigInteger(bytes), scale).toPlainString());
        if (ann instanceof LogicalTypeAnnotation.UUIDLogicalTypeAnnotation) {
          ByteBuffer u = ByteBuffer.wrap(bytes);
          return token("uuid", new UUID(u.getLong(), u.getLong()).toString());
        }
        if (ann instanceof LogicalTypeAnnotation.Float16LogicalTypeAnnotation)
          return token("float", Double.toString(half(bytes)));
        if (ann instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
            || ann instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation)
          return JSON.getNodeFactory().textNode(b.toStringUsingUTF8());
        return token("bin", HexFormat.of().formatHex(bytes));
      }
    }
  }

  /** An IEEE 754 half-precision float (2 bytes, little-endian) as a double. */
  static double half(byte[] le) {
    int h = (le[0] & 0xFF) | (le[1] & 0xFF) << 8;
    int sign = (h >> 15) == 0 ? 1 : -1, exp = (h >> 10) & 0x1F, frac = h & 0x3FF;
    if (exp == 0) return sign * Math.scalb((double) frac, -24);
    if (exp == 31) return frac == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
    return sign * Math.scalb((double) (frac | 0x400), exp - 25);
  }
}
