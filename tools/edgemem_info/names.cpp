// edgemem-info: stable names of edgemem's enums (JSON keys and values, table labels).
#include <cstdio>

#include "report.hpp"

namespace info {

using namespace edgemem;

const ExternalKind external_kinds[4] = {
    {external_dma_buf, "dma_buf"},
    {external_arm_import, "arm_import"},
    {external_opaque_fd, "opaque_fd"},
    {external_opaque_win32, "opaque_win32"},
};

const char* name(ImageType t) noexcept {
  switch (t) {
    case ImageType::image1d: return "image1d";
    case ImageType::image1d_buffer: return "image1d_buffer";
    case ImageType::image1d_array: return "image1d_array";
    case ImageType::image2d: return "image2d";
    case ImageType::image2d_array: return "image2d_array";
    case ImageType::image3d: return "image3d";
  }
  return "?";
}

const char* name(FormatAccess a) noexcept {
  switch (a) {
    case FormatAccess::read_only: return "read_only";
    case FormatAccess::write_only: return "write_only";
    case FormatAccess::read_write: return "read_write";
    case FormatAccess::kernel_read_write: return "kernel_read_write";
  }
  return "?";
}

const char* name(ChannelOrder o) noexcept {
  switch (o) {
    case ChannelOrder::r: return "r";
    case ChannelOrder::rg: return "rg";
    case ChannelOrder::rgba: return "rgba";
    case ChannelOrder::bgra: return "bgra";
    case ChannelOrder::argb: return "argb";
    case ChannelOrder::a: return "a";
    case ChannelOrder::rgb: return "rgb";
  }
  return "?";
}

const char* name(ChannelType t) noexcept {
  switch (t) {
    case ChannelType::snorm_int8: return "snorm_int8";
    case ChannelType::snorm_int16: return "snorm_int16";
    case ChannelType::unorm_int8: return "unorm_int8";
    case ChannelType::unorm_int16: return "unorm_int16";
    case ChannelType::unorm_short_565: return "unorm_short_565";
    case ChannelType::unorm_short_555: return "unorm_short_555";
    case ChannelType::unorm_int_101010: return "unorm_int_101010";
    case ChannelType::signed_int8: return "signed_int8";
    case ChannelType::signed_int16: return "signed_int16";
    case ChannelType::signed_int32: return "signed_int32";
    case ChannelType::unsigned_int8: return "unsigned_int8";
    case ChannelType::unsigned_int16: return "unsigned_int16";
    case ChannelType::unsigned_int32: return "unsigned_int32";
    case ChannelType::half_float: return "half_float";
    case ChannelType::float32: return "float32";
  }
  return "?";
}

void format_name(ImageFormat f, char* out, std::size_t cap) noexcept {
  std::snprintf(out, cap, "%s/%s", name(f.order), name(f.type));
}

}  // namespace info
