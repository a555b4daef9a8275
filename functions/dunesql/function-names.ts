import { didYouMean } from '../core/name-suggestions';
import { functionCall, rewrite, someNode } from './ast';
import { ATHENA_RULES } from './athena-target';
import { DUCKDB_RULES } from './duckdb-target';
import { UnsupportedConstruct } from './errors';
import { referenceEntries } from './function-support';
import type { AstNode } from './polyglot';

/**
 * Trino's functions, as its documentation lists them (trinodb/trino,
 * docs/src/main/sphinx/functions/list.md), spatial ones in lower case: Athena engine 3 runs Trino,
 * so a name not here (nor among Dune's below) is refused there as "Function '…' not registered".
 */
const TRINO_FUNCTIONS = `
abs acos all_match any_match any_value approx_distinct approx_most_frequent approx_percentile
approx_set arbitrary array_agg array_distinct array_except array_first array_histogram
array_intersect array_join array_last array_max array_min array_position array_remove array_sort
array_union arrays_overlap asin at_timezone atan atan2 avg
bar beta_cdf bing_tile bing_tile_at bing_tile_coordinates bing_tile_polygon bing_tile_quadkey
bing_tile_zoom_level bing_tiles_around bit_count bitwise_and bitwise_and_agg bitwise_left_shift
bitwise_not bitwise_or bitwise_or_agg bitwise_right_shift bitwise_right_shift_arithmetic
bitwise_xor bool_and bool_or
cardinality cast cbrt ceil ceiling char2hexint checksum chr classify classifier coalesce
codepoint collect color combinations concat concat_ws contains contains_sequence convex_hull_agg
corr cos cosh cosine_distance cosine_similarity count count_if covar_pop covar_samp crc32
cume_dist current_date current_groups current_time current_timestamp current_timezone
current_user
date date_add date_diff date_format date_parse date_trunc day day_of_month day_of_week
day_of_year degrees dense_rank dow doy
e element element_at empty_approx_set ends_with evaluate_classifier_predictions every
exclude_columns extract exp
features filter first first_value flatten floor format format_datetime format_number from_base
from_base32 from_base64 from_base64url from_big_endian_32 from_big_endian_64
from_encoded_polyline from_geojson_geometry from_hex from_ieee754_32 from_ieee754_64
from_iso8601_date from_iso8601_timestamp from_iso8601_timestamp_nanos from_unixtime
from_unixtime_nanos from_utf8 fusion
geometric_mean geometry_collect_agg geometry_from_hadoop_shape geometry_invalid_reason
geometry_nearest_points geometry_to_bing_tiles geometry_union geometry_union_agg
great_circle_distance greatest
hamming_distance hash_counts histogram hmac_md5 hmac_sha1 hmac_sha256 hmac_sha512 hour
human_readable_seconds
if index infinity intersection intersection_cardinality inverse_beta_cdf inverse_normal_cdf
is_finite is_infinite is_json_scalar is_nan
jaccard_index json json_array json_array_contains json_array_get json_array_length json_exists
json_extract json_extract_scalar json_format json_object json_parse json_query json_scalar
json_serialize json_size json_value
kurtosis
lag last last_day_of_month last_value lead learn_classifier learn_libsvm_classifier
learn_libsvm_regressor learn_regressor least length levenshtein_distance line_interpolate_point
line_interpolate_points line_locate_point listagg ln localtime localtimestamp log log10 log2
lower lpad ltrim luhn_check
make_set_digest map map_agg map_concat map_entries map_filter map_from_entries map_keys
map_union map_values map_zip_with match_number max max_by md5 merge merge_set_digest millisecond
min min_by minute mod month multimap_agg multimap_from_entries murmur3
nan next ngrams none_match normal_cdf normalize now nth_value ntile nullif numeric_histogram
objectid objectid_timestamp
parse_datetime parse_duration parse_data_size percent_rank permute pi position pow power prev
qdigest_agg quarter
radians rand random random_string rank reduce reduce_agg regexp_count regexp_extract
regexp_extract_all regexp_like regexp_position regexp_replace regexp_split regress
regr_intercept regr_slope render repeat replace reverse rgb round row_number rpad rtrim
second sequence set sha1 sha256 sha512 shuffle sign simplify_geometry sin sinh skewness slice
soundex spatial_partitioning spatial_partitions split split_part split_to_map split_to_multimap
spooky_hash_v2_32 spooky_hash_v2_64 sqrt st_area st_asbinary st_asewkb st_asewkt st_astext
st_boundary st_buffer st_centroid st_collect st_contains st_convexhull st_coorddim st_crosses
st_difference st_dimension st_disjoint st_distance st_endpoint st_envelope st_envelopeaspts
st_equals st_exteriorring st_force2d st_force3d st_geometries st_geometryfromtext st_geometryn
st_geometrytype st_geomfrombinary st_geomfromewkt st_geomfromkml st_interiorringn
st_interiorrings st_intersection st_intersects st_isclosed st_isempty st_isring st_issimple
st_isvalid st_length st_linefromtext st_linemerge st_linestring st_makeline st_makepolygon
st_minimumboundingcircle st_multi st_multipoint st_normalize st_numgeometries st_numinteriorring
st_numpoints st_orientedenvelope st_overlaps st_point st_pointn st_pointonsurface st_points
st_polygon st_polygonize st_relate st_reduceprecision st_setsrid st_srid st_startpoint
st_symdifference st_touches st_transform st_union st_voronoipolygons st_within st_x st_xmax
st_xmin st_y st_ymax st_ymin st_z starts_with stddev stddev_pop stddev_samp strpos substr
substring sum
tan tanh tdigest_agg theta_sketch_cardinality theta_sketch_union timestamp_objectid timezone
timezone_hour timezone_minute title_case to_base to_base32 to_base64 to_base64url
to_big_endian_32 to_big_endian_64 to_char to_date to_encoded_polyline to_geojson_geometry
to_geometry to_hex to_ieee754_32 to_ieee754_64 to_iso8601 to_milliseconds to_spherical_geography
to_timestamp to_unixtime to_utf8 transform transform_keys transform_values translate trim
trim_array truncate try try_cast typeof
upper url_decode url_encode url_extract_fragment url_extract_host url_extract_parameter
url_extract_path url_extract_protocol url_extract_port url_extract_query uuid
value_at_quantile values_at_quantiles var_pop var_samp variance version
week week_of_year width_bucket wilson_interval_lower wilson_interval_upper with_timezone
word_stem
xxhash64
year year_of_week yow
zip zip_with
`;

/**
 * Trino's special forms polyglot reads as calls (`row(…)`, `table(…)` in FROM, GROUP BY
 * `rollup(…)`, `cube(…)` and `grouping sets (…)`, `grouping(…)`, `current_schema`) and Dune's own
 * varchar utilities `left` and `right`.
 */
const CALL_LIKE_FORMS = [
  'row',
  'table',
  'rollup',
  'cube',
  'grouping',
  'grouping sets',
  'current_catalog',
  'current_schema',
  'left',
  'right',
];

/**
 * The names DuneSQL calls: Trino's, and Dune's extensions, which the translator's rule tables know
 * by the names users write (`varbinary_to_uint256`, `keccak`, `get_href`, …; every entry of the
 * functions reference is one or the other: test/dunesql/function-names.test.ts).
 */
const DUNESQL_FUNCTIONS: ReadonlySet<string> = new Set([
  ...TRINO_FUNCTIONS.split(/\s+/).filter(Boolean),
  ...CALL_LIKE_FORMS,
  ...Object.keys(DUCKDB_RULES),
  ...Object.keys(ATHENA_RULES),
]);

/**
 * Dune's own functions this service does not have (neither engine runs them), as Dune documents
 * them (duneanalytics/dune-docs, query-engine/Functions-and-operators): refused saying so, not as
 * a name nobody knows. Athena reports them as not registered.
 */
const DUNE_FUNCTIONS_NOT_HERE = new Set([
  'address_32_from_hex',
  'all_op_chains',
  'array_overlap',
  'decode_evm_event',
  'decode_evm_function_call',
  'empty_hll',
  'from_ss58',
  'from_tron_address',
  'get_balancer_link',
  'http_get',
  'http_post',
  'initcap',
  'quantile_at_value',
  'to_ss58',
  'to_tron_address',
  'ton_address_raw_to_user_friendly',
  'ton_address_user_friendly_to_raw',
  'try_sum',
]);

export const isDuneSqlFunction = (name: string): boolean => DUNESQL_FUNCTIONS.has(name.toLowerCase());

/**
 * Throws at the first call of a function DuneSQL does not have. The local engine would run
 * DuckDB's own (`list_resize`, `txid_current`, `read_csv`, …), which Athena and Dune refuse: a query
 * developed locally would fail once deployed. Athena reports these itself, so only the local
 * translation checks. Other dialects' common functions are refused earlier with what to write
 * instead (other-dialects.ts), DuckDB's catalog functions with where to look (engine-internals.ts).
 */
export function refuseUnknownFunctions(statement: AstNode): void {
  rewrite(statement, (node) => {
    const call = functionCall(node);
    if (call && !DUNESQL_FUNCTIONS.has(call.name)) throw notRegistered(call.name);
    return undefined;
  });
}

/**
 * UNNEST called as a function in a select list (PostgreSQL's and DuckDB's way; Spark's explode):
 * in Trino it is a relation in FROM only, and Athena refuses the call.
 */
export function refuseUnnestCalls(statement: AstNode): void {
  if (!someNode(statement, (node) => functionCall(node)?.name === 'unnest')) return;
  throw new UnsupportedConstruct(
    'unnest',
    'UNNEST is not a function in DuneSQL: it turns an array into rows in FROM. Write select u.value from t cross join unnest(t.array_column) as u(value) (with ordinality adds the position).',
    'syntax',
  );
}

function notRegistered(name: string): UnsupportedConstruct {
  const why = DUNE_FUNCTIONS_NOT_HERE.has(name)
    ? "it is one of Dune's own functions, which this service does not have (neither the local engine nor Athena runs it)."
    : `it is not a Trino function nor one of Dune's, so Athena and Dune refuse it too.${didYouMean(name, [], localFunctionNames())}`;
  return new UnsupportedConstruct(
    name,
    `Function '${name}' not registered: ${why} SHOW FUNCTIONS LIKE '%…%' and the functions reference (MCP resource query-engine-functions-and-operators) list DuneSQL's.`,
    'syntax',
  );
}

/**
 * DuckDB's catalog error for a function it lacks (`Scalar Function with name to_ieee754_64 does not
 * exist! Did you mean "to_weeks"?`), reworded: the name passed the check above, so it is DuneSQL's
 * (Athena runs it) but the local engine has no counterpart; DuckDB's suggestion named one of its
 * own functions, which DuneSQL refuses. The closest functions that run here are suggested instead.
 */
export function localFunctionMessage(message: string): string {
  return message.replace(
    /^(?:Scalar |Aggregate |Table |Pragma )?Function with name "?([\w.]+)"? does not exist!(?:\s*Did you mean "[^"]*"\?)?/i,
    (_, name: string) => {
      const lower = name.toLowerCase();
      const why = DUNESQL_FUNCTIONS.has(lower)
        ? 'DuneSQL has it (Athena runs it), but the local engine does not.'
        : 'it is not a DuneSQL function.';
      return `Function '${lower}' is not available here: ${why}${didYouMean(lower, [], localFunctionNames())} SHOW FUNCTIONS LIKE '%…%' lists what runs locally.`;
    },
  );
}

let localNames: string[] | undefined;

/** The documented functions the local engine runs: what a misspelt name is compared with. */
function localFunctionNames(): string[] {
  localNames ??= [
    ...new Set(
      referenceEntries()
        .filter((entry) => entry.local.available && /^[a-z_][a-z0-9_]*$/.test(entry.name))
        .map((entry) => entry.name),
    ),
  ];
  return localNames;
}
