"""render_scene and LedLayout: which colour each LED gets, at which moment."""
from __future__ import annotations

import pytest

from hardware.leds import FLASH_SECONDS, LayoutError, LedLayout, Scene, Segment, render_scene
from hardware.leds.render import DRAGON_HURT, DRAGON_WHOLE, GOLD, RED

pytestmark = pytest.mark.hardware

RED_P, BLUE_P = (255, 0, 0), (0, 0, 255)
LAYOUT = LedLayout(
    count=40,
    turn=Segment(0, 4),
    armies=(Segment(4, 20),),  # shared by the players: 10 LEDs each for two
    dragon=Segment(24, 6),
    tray=Segment(30, 10),
)
PEAK = 0.625  # the turn colour's breathing is at full brightness a quarter period in
LOW = 1.875


def scene(**kw) -> Scene:
    base = {"players": [("Jane", RED_P, 2500), ("Joseph", BLUE_P, 5600)], "current": 0}
    return Scene(**{**base, **kw})


def test_default_layout_fills_the_strip():
    layout = LedLayout.default(60)
    assert (layout.turn, layout.armies, layout.dragon, layout.tray) == (
        Segment(0, 5), (Segment(5, 30),), Segment(35, 5), Segment(40, 20))
    assert layout.flash is None


def test_turn_segment_breathes_in_the_current_players_colour():
    assert render_scene(scene(), PEAK, LAYOUT)[:4] == [RED_P] * 4
    assert render_scene(scene(), LOW, LAYOUT)[0] == (165, 0, 0)
    assert render_scene(scene(current=1), PEAK, LAYOUT)[:4] == [BLUE_P] * 4
    assert render_scene(scene(current=None), PEAK, LAYOUT)[:4] == [(0, 0, 0)] * 4


def test_army_bars_fill_towards_5000():
    px = render_scene(scene(), PEAK, LAYOUT)
    dim_red = (15, 0, 0)
    assert px[4:9] == [RED_P] * 5  # 2500 of 5000 on 10 LEDs
    assert px[9:14] == [dim_red] * 5  # the rest of Jane's segment glows faintly
    assert px[14:24] == [BLUE_P] * 10  # over 5000: full


def test_partial_led_shows_the_fraction():
    px = render_scene(scene(players=[("Jane", RED_P, 1250), ("Joseph", BLUE_P, 0)]), PEAK, LAYOUT)
    assert px[4:8] == [RED_P, RED_P, (127, 0, 0), (15, 0, 0)]


def test_dragon_counters_turn_red_with_damage():
    px = render_scene(scene(dragon_health=3, dragon_damage=1), PEAK, LAYOUT)
    assert px[24:30] == [DRAGON_HURT] * 2 + [DRAGON_WHOLE] * 4
    px = render_scene(scene(dragon_health=3, dragon_damage=0), PEAK, LAYOUT)
    assert px[24:30] == [DRAGON_WHOLE] * 6


def test_tray_lights_next_to_settable_dice_and_hint():
    px = render_scene(scene(settable=[0.0, 0.5, 1.0]), PEAK, LAYOUT)
    lit = [i for i in range(30, 40) if px[i] != (0, 0, 0)]
    assert lit == [30, 34, 39] and px[34] == RED_P
    px = render_scene(scene(hint=0.5), 0.125, LAYOUT)  # hint pulse at its peak
    assert px[34] == (255, 255, 255)


def test_dice_the_camera_asks_about_blink_sky_blue_in_the_tray():
    from hardware.leds.render import ASK

    on = render_scene(scene(asked=[0.5], settable=[0.0]), 0.1, LAYOUT)
    off = render_scene(scene(asked=[0.5], settable=[0.0]), 0.5, LAYOUT)  # 1.5 blinks a second
    assert on[34] == ASK and off[34] == (0, 0, 0)
    assert on[30] == off[30] == RED_P  # the settable die stays lit


def test_reversed_segment_runs_the_other_way():
    layout = LedLayout(count=10, tray=Segment(0, 10, reverse=True))
    px = render_scene(scene(settable=[0.0]), PEAK, layout)
    assert px[9] == RED_P and px[0] == (0, 0, 0)


@pytest.mark.parametrize("flash", sorted(FLASH_SECONDS))
def test_every_flash_covers_the_strip_then_ends(flash):
    quiet = render_scene(scene(), PEAK, LAYOUT)
    during = render_scene(scene(flash=flash, flash_started=PEAK - 0.4), PEAK, LAYOUT)
    assert during != quiet
    later = PEAK + FLASH_SECONDS[flash]
    after = render_scene(scene(flash=flash, flash_started=PEAK), later + 2.5, LAYOUT)
    assert after == render_scene(scene(), later + 2.5, LAYOUT)


def test_farkle_blinks_red():
    s = scene(flash="farkle", flash_started=10.0)
    assert render_scene(s, 10.1, LAYOUT) == [RED] * 40
    assert render_scene(s, 10.3, LAYOUT) == [(0, 0, 0)] * 40
    assert render_scene(s, 10.6, LAYOUT) == [RED] * 40


def test_flash_fades_out_over_its_last_quarter():
    s = scene(flash="bank", flash_started=0.0)
    px = render_scene(s, 1.05, LAYOUT)  # 1.2 s flash, half way through the fade
    assert 100 < px[39][0] < 255 and px[39] != GOLD


def test_flash_region_limits_the_animation():
    layout = LedLayout(count=40, turn=Segment(0, 4), flash=Segment(30, 10))
    px = render_scene(scene(flash="farkle", flash_started=0.0), 0.1, layout)
    assert px[30:40] == [RED] * 10 and px[0] != RED


def test_winner_colour_chases_round_the_strip():
    px = render_scene(scene(winner=1, current=None, flash_started=0.0), 0.0, LAYOUT)
    assert px[0] == BLUE_P and px[1] == (0, 0, 76)  # comet head, then the glow
    assert [i for i, p in enumerate(px) if p == BLUE_P] == [0, 36, 37, 38, 39]
    assert [i for i, p in enumerate(px) if p == GOLD] == [11, 22, 33]  # sparkles
    assert RED_P not in px
    later = render_scene(scene(winner=1, current=None, flash_started=0.0), 1.0, LAYOUT)
    assert later[20] == BLUE_P  # the head moved 20 LEDs in a second; it never stops


def test_winner_takes_the_turn_light_outside_the_flash_region():
    layout = LedLayout(count=40, turn=Segment(0, 4), flash=Segment(30, 10))
    px = render_scene(scene(winner=1, current=None), 0.0, layout)
    assert px[0:4] == [BLUE_P] * 4


def test_render_is_pure():
    s = scene(flash="dragon", flash_started=1.0, settable=[0.3])
    assert render_scene(s, 1.7, LAYOUT) == render_scene(s, 1.7, LAYOUT)
    assert s == scene(flash="dragon", flash_started=1.0, settable=[0.3])


def test_scene_checks_its_fields():
    with pytest.raises(ValueError, match="unknown flash"):
        scene(flash="fireworks")
    with pytest.raises(ValueError, match="current=2"):
        scene(current=2)


def test_layout_refuses_segments_off_the_strip():
    with pytest.raises(LayoutError, match=r"tray \(35..44\) does not fit a strip of 40"):
        LedLayout(count=40, tray=Segment(35, 10))
    with pytest.raises(LayoutError, match="positive integer"):
        LedLayout(count=0)


def test_layout_from_config_mapping():
    layout = LedLayout.from_mapping(
        30, {"turn": [0, 2], "armies": [[2, 5], [7, 5]], "tray": [12, 10, "reverse"]}
    )
    assert layout.armies == (Segment(2, 5), Segment(7, 5))
    assert layout.tray == Segment(12, 10, True)
    assert layout.army_segments(2) == (Segment(2, 5), Segment(7, 5))
    with pytest.raises(LayoutError, match="unknown LED segment 'bar'"):
        LedLayout.from_mapping(30, {"bar": [0, 1]})
    with pytest.raises(LayoutError, match=r"\[start, length\]"):
        LedLayout.from_mapping(30, {"turn": [0, "x"]})


def test_shared_army_segment_splits_by_player_count():
    seg = Segment(0, 10)
    assert seg.split(3) == (Segment(0, 3), Segment(3, 4), Segment(7, 3))
    assert Segment(0, 10, True).split(2) == (Segment(5, 5, True), Segment(0, 5, True))
