"""TargetProfile: read from the module's `accy.target` attribute, defaults when absent, every
malformed key a TargetError naming it; schedules looked up per shape, defaults otherwise."""
import pytest

from accy.ir import parse
from accy.passes import AnalysisCache, PassManager, register_pass
from accy.passes.core import Pass
from accy.passes.target import (AttentionSchedule, DotSchedule, RowSchedule, ScanSchedule,
                                TargetError, TargetProfile, default_row_schedule,
                                read_target_profile, target_profile)


def _module(target_text):
    return parse(f"builtin.module {{accy.target = {target_text}}} ({{\n^bb0:\n}})"
                 if target_text else "builtin.module ({\n^bb0:\n})")


def test_defaults_when_the_attribute_is_absent():
    assert read_target_profile(_module("")) == TargetProfile()
    assert TargetProfile().arch == "sm_90" and TargetProfile().math_tier == "exact"


def test_a_full_profile_round_trips_through_text():
    m = _module('{arch = "sm_90a", ptx_version = "8.4", artifact_format = "cubin", '
                'math_tier = "fast", row_pipeline_schedules = [{row_length = 1024, dtype = "f32", '
                'threads_per_row = 256, elements_per_thread = 4}], scan_schedules = [{length = '
                '4096, dtype = "bf16", threads = 512, elements_per_thread = 8}]}')
    p = read_target_profile(parse(m.print()))
    assert (p.arch, p.ptx_version, p.artifact_format, p.math_tier) == \
        ("sm_90a", "8.4", "cubin", "fast")
    assert p.row_schedule(1024, "f32") == RowSchedule(1024, "f32", 256, 4)
    assert p.scan_schedule(4096, "bf16") == ScanSchedule(4096, "bf16", 512, 8)
    assert p.row_schedule(1024, "f16") == default_row_schedule(1024, "f16")   # other dtype
    assert "sm_90a" in p.text() and "256 threads/row" in p.text()


def test_attention_schedules_are_keyed_by_lengths_head_dim_and_dtype():
    m = _module('{attention_schedules = [{seq_q = 4096, seq_k = 4096, head_dim = 128, '
                'dtype = "bf16", block_q = 128, block_k = 64}]}')
    p = read_target_profile(parse(m.print()))
    assert p.attention_schedule(4096, 4096, 128, "bf16") == AttentionSchedule(
        4096, 4096, 128, "bf16", 128, 64)
    assert p.attention_schedule(4096, 4096, 64, "bf16") is None
    assert "attention schedule 4096 x 4096 x 128 bf16: 128 query rows, 64 keys" in p.text()


def test_dot_schedules_are_keyed_by_m_n_k_and_dtype():
    m = _module('{dot_schedules = [{m = 4096, n = 4096, k = 4096, dtype = "bf16", tile_m = 128, '
                'tile_n = 256, tile_k = 64, stages = 4, splits = 1}, {m = 4096, n = 4096, '
                'k = 4096, dtype = "f16", tile_m = 128, tile_n = 128, tile_k = 32, stages = 3, '
                'splits = 2}]}')
    p = read_target_profile(parse(m.print()))
    assert p.dot_schedule(4096, 4096, 4096, "bf16") == DotSchedule(4096, 4096, 4096, "bf16",
                                                                   128, 256, 64, 4, 1)
    assert p.dot_schedule(4096, 4096, 4096, "f16").splits == 2
    assert p.dot_schedule(4096, 4096, 2048, "bf16") is None
    assert "dot schedule 4096 x 4096 x 4096 bf16: 128 x 256 tiles, 4 stages of 64" in p.text()


@pytest.mark.parametrize("text,key", [
    ('"sm_90"', "must be a dictionary"),
    ('{arch = "sm_75"}', "arch"), ('{ptx_version = "9.1"}', "ptx_version"),
    ('{artifact_format = "sass"}', "artifact_format"), ('{math_tier = "loose"}', "math_tier"),
    ('{arch = "sm_90a", ptx_version = "7.8"}', "sm_90a needs"),
    ('{archs = "sm_90"}', "unknown keys"),
    ('{row_pipeline_schedules = {row_length = 1}}', "row_pipeline_schedules must be a list"),
    ('{row_pipeline_schedules = [{row_length = 8, dtype = "f32", threads_per_row = 32}]}',
     "needs exactly the keys"),
    ('{row_pipeline_schedules = [{row_length = 8, dtype = "f7", threads_per_row = 32, '
     'elements_per_thread = 1}]}', "dtype"),
    ('{scan_schedules = [{length = 8, dtype = "f32", threads = 2048, elements_per_thread = 1}]}',
     "threads must be an integer"),
    ('{scan_schedules = [{length = 8, dtype = "f32", threads = 32, elements_per_thread = 1}, '
     '{length = 8, dtype = "f32", threads = 64, elements_per_thread = 1}]}', "repeats"),
    ('{dot_schedules = [{m = 8, n = 8, k = 8, dtype = "bf16", tile_m = 128, tile_n = 64, '
     'tile_k = 32, stages = 3, splits = 1}]}', "tile_m x tile_n must be one of"),
    ('{dot_schedules = [{m = 8, n = 8, k = 8, dtype = "f32", tile_m = 64, tile_n = 64, '
     'tile_k = 64, stages = 3, splits = 1}]}', "tile_k must be one of 32 for f32"),
    ('{dot_schedules = [{m = 8, n = 8, k = 8, dtype = "bf16", tile_m = 64, tile_n = 64, '
     'tile_k = 16, stages = 3, splits = 1}]}', "tile_k must be one of 32, 64 for bf16"),
    ('{dot_schedules = [{m = 8, n = 8, k = 8, dtype = "f64", tile_m = 64, tile_n = 64, '
     'tile_k = 32, stages = 3, splits = 1}]}', "dtype must be one of f16, bf16, f32"),
    ('{dot_schedules = [{m = 8, n = 8, k = 8, dtype = "bf16", tile_m = 64, tile_n = 64, '
     'tile_k = 32, stages = 1, splits = 1}]}', "stages must be 2 to 8"),
    ('{dot_schedules = [{m = 8, n = 8, k = 8, dtype = "bf16", tile_m = 64, tile_n = 64, '
     'stages = 3}]}', "needs exactly the keys"),
    ('{dot_schedules = [{m = 8, n = 8, k = 0, dtype = "bf16", tile_m = 64, tile_n = 64, '
     'tile_k = 32, stages = 3, splits = 1}]}', "k must be an integer"),
    ('{attention_schedules = [{seq_q = 8, seq_k = 8, head_dim = 64, dtype = "bf16", '
     'block_q = 128, block_k = 32}]}', "block_q at most 2 x block_k"),
    ('{attention_schedules = [{seq_q = 8, seq_k = 8, head_dim = 64, dtype = "bf16", '
     'block_q = 96, block_k = 64}]}', "block_q must be 64 or 128"),
    ('{attention_schedules = [{seq_q = 8, seq_k = 8, head_dim = 64, dtype = "f32", '
     'block_q = 64, block_k = 64}]}', "dtype must be one of f16, bf16"),
])
def test_malformed_profiles_name_the_key(text, key):
    with pytest.raises(TargetError, match=key):
        read_target_profile(_module(text))


@pytest.mark.parametrize("length", [1, 31, 32, 1000, 1024, 1025, 4096, 100000])
def test_default_row_schedules_cover_the_row(length):
    s = default_row_schedule(length, "f32")
    assert 1 <= s.threads_per_row <= 1024 and s.threads_per_row % 32 == 0
    assert 1 <= s.elements_per_thread <= 8
    assert s.threads_per_row * s.elements_per_thread >= min(length, 8 * 1024) or \
        s.elements_per_thread == 8


def test_the_profile_is_cached_per_module_and_follows_changes():
    seen = []

    def run(op, ctx):
        seen.append(target_profile(ctx, op))
        ctx.preserve_all_analyses()
    register_pass(Pass("test-read-target", run))
    m = _module('{arch = "sm_80"}')
    cache = AnalysisCache(m.context)
    pm = PassManager("test-read-target,test-read-target")
    pm.run(m, cache=cache)
    assert [p.arch for p in seen] == ["sm_80", "sm_80"] and seen[0] is seen[1]
    m.set_attribute("accy.target", {"arch": "sm_86"})
    pm.run(m, cache=cache)
    assert seen[-1].arch == "sm_86"
