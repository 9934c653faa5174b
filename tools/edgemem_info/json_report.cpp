// edgemem-info --json: one JSON document with stable keys (schema 1):
//   tool, schema, edgemem_version, backend, allocator, device_count (devices opened),
//   error (null, or why no device opened: {code, native, message}),
//   devices: [{platform_index, device_index, opened, error (null or {code, native, message}),
//     and for an opened device: backend, name, version, driver, api_version ("major.minor"),
//     unified_memory, base_align_bytes, max_alloc_bytes, global_mem_bytes,
//     capabilities {images, image_from_buffer, image_from_sub_buffer, svm_coarse, svm_fine_buffer,
//       svm_fine_system, svm_migration, max_fill_pattern_bytes, fill_pattern_sizes [bytes], external_memory
//       {dma_buf, arm_import, opaque_fd, opaque_win32}, unified_memory, caller_memory_in_place, read_only_caller_memory_in_place, migration, sub_buffer_migration,
//       host_access_flags},
//     image_limits {max_width_2d, max_height_2d, max_width_3d, max_height_3d, max_depth_3d,
//       max_array_size, max_buffer_pixels, pitch_align_pixels, base_align_pixels},
//     image_formats {<image type>: {<access>: ["order/type", ...]}},
//     profile (null with --no-profile, else {seconds, buffer_bytes, transfer_bytes, pool_block_bytes,
//       pool_blocks, measures {<key>: {unit, value (p50; null on error), best, runs, what, error}}})}]
#include "json_writer.hpp"
#include "report.hpp"

namespace info {

using namespace edgemem;

namespace {

void error_value(JsonWriter& j, const Error& e) {
  j.begin_object();
  j.field("code", to_string(e.code));
  j.field("native", static_cast<std::int64_t>(e.native));
  j.field("message", e.message);
  j.end_object();
}

void capabilities(JsonWriter& j, const Capabilities& c) {
  j.key("capabilities");
  j.begin_object();
  j.field("images", c.images);
  j.field("image_from_buffer", c.image_from_buffer);
  j.field("image_from_sub_buffer", c.image_from_sub_buffer);
  j.field("svm_coarse", c.svm_coarse);
  j.field("svm_fine_buffer", c.svm_fine_buffer);
  j.field("svm_fine_system", c.svm_fine_system);
  j.field("svm_migration", c.svm_migration);
  j.field("max_fill_pattern_bytes", c.max_fill_pattern_bytes);
  j.key("fill_pattern_sizes");
  j.begin_array(true);
  for (std::size_t n = 1; n != 0 && n <= c.max_fill_pattern_bytes; n *= 2) j.value(n);
  j.end_array();
  j.key("external_memory");
  j.begin_object();
  for (const ExternalKind& k : external_kinds) j.field(k.key, (c.external_memory & k.bit) != 0);
  j.end_object();
  j.field("unified_memory", c.unified_memory);
  j.field("caller_memory_in_place", c.caller_memory_in_place);
  j.field("read_only_caller_memory_in_place", c.read_only_caller_memory_in_place);
  j.field("migration", c.migration);
  j.field("sub_buffer_migration", c.sub_buffer_migration);
  j.field("host_access_flags", c.host_access_flags);
  j.end_object();
}

void image_limits(JsonWriter& j, const ImageLimits& l) {
  j.key("image_limits");
  j.begin_object();
  j.field("max_width_2d", l.max_width_2d);
  j.field("max_height_2d", l.max_height_2d);
  j.field("max_width_3d", l.max_width_3d);
  j.field("max_height_3d", l.max_height_3d);
  j.field("max_depth_3d", l.max_depth_3d);
  j.field("max_array_size", l.max_array_size);
  j.field("max_buffer_pixels", l.max_buffer_pixels);
  j.field("pitch_align_pixels", l.pitch_align_pixels);
  j.field("base_align_pixels", l.base_align_pixels);
  j.end_object();
}

void image_formats(JsonWriter& j, const DeviceReport& r) {
  j.key("image_formats");
  j.begin_object();
  for (unsigned t = 0; t < image_type_count; ++t) {
    j.key(name(static_cast<ImageType>(t)));
    j.begin_object();
    for (unsigned a = 0; a < format_access_count; ++a) {
      j.key(name(static_cast<FormatAccess>(a)));
      j.begin_array(true);
      for (ImageFormat f : r.formats[t][a]) {
        char text[48];
        format_name(f, text, sizeof text);
        j.value(text);
      }
      j.end_array();
    }
    j.end_object();
  }
  j.end_object();
}

void profile(JsonWriter& j, const DeviceReport& r) {
  j.key("profile");
  if (!r.profiled) return j.null();
  const Profile& p = r.profile;
  j.begin_object();
  j.field("seconds", p.seconds);
  j.field("buffer_bytes", p.buffer_bytes);
  j.field("transfer_bytes", p.transfer_bytes);
  j.field("pool_block_bytes", p.pool_block_bytes);
  j.field("pool_blocks", p.pool_blocks);
  j.key("measures");
  j.begin_object();
  for (const Measure& m : p.measures) {
    j.key(m.key);
    j.begin_object();
    j.field("unit", m.unit);
    j.key("value");
    if (m.ok) j.value(m.value);
    else j.null();
    j.key("best");
    if (m.ok) j.value(m.best);
    else j.null();
    j.field("runs", m.runs);
    j.field("what", m.what);
    j.key("error");
    if (m.ok) j.null();
    else error_value(j, m.error);
    j.end_object();
  }
  j.end_object();
  j.end_object();
}

void device(JsonWriter& j, const DeviceReport& r) {
  j.begin_object();
  j.field("platform_index", r.platform);
  j.field("device_index", r.device);
  j.field("opened", r.opened);
  j.key("error");
  if (r.opened) j.null();
  else error_value(j, r.error);
  if (r.opened) {
    const DeviceInfo& i = r.info;
    j.field("backend", i.backend);
    j.field("name", i.name);
    j.field("version", i.version);
    j.field("driver", i.driver);
    char api[32];
    std::snprintf(api, sizeof api, "%u.%u", i.version_major, i.version_minor);
    j.field("api_version", static_cast<const char*>(api));
    j.field("unified_memory", i.caps.unified_memory);
    j.field("base_align_bytes", i.base_align_bytes);
    j.field("max_alloc_bytes", i.max_alloc_bytes);
    j.field("global_mem_bytes", i.global_mem_bytes);
    capabilities(j, i.caps);
    image_limits(j, i.image_limits);
    image_formats(j, r);
    profile(j, r);
  }
  j.end_object();
}

}  // namespace

void write_json(std::FILE* out, const Survey& survey, const Options&) {
  JsonWriter j(out);
  unsigned opened = 0;
  for (const DeviceReport& r : survey.devices) opened += r.opened ? 1 : 0;
  j.begin_object();
  j.field("tool", "edgemem-info");
  j.field("schema", 1);
  j.field("edgemem_version", EDGEMEM_VERSION);
  j.field("backend", EDGEMEM_BACKEND_NAME);
  j.field("allocator", EDGEMEM_ALLOCATOR_NAME);
  j.field("device_count", opened);
  j.key("error");
  if (opened > 0) j.null();
  else error_value(j, survey.none_reason);
  j.key("devices");
  j.begin_array();
  for (const DeviceReport& r : survey.devices) device(j, r);
  j.end_array();
  j.end_object();
  j.finish();
}

}  // namespace info
