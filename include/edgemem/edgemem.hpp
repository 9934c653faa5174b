/// @file edgemem.hpp  Everything edgemem offers, in one include.
#pragma once
#include <edgemem/allocator.hpp>
#include <edgemem/buffer.hpp>
#include <edgemem/config.hpp>
#include <edgemem/context.hpp>
#include <edgemem/device.hpp>
#include <edgemem/error.hpp>
#include <edgemem/event.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/mapping.hpp>
#include <edgemem/queue.hpp>
#include <edgemem/rect.hpp>
#include <edgemem/result.hpp>
#include <edgemem/span.hpp>
