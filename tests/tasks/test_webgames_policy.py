"""The WebGames policy's readers (``tests/servers/webgames_policy.py``): what it takes from a page's
words before it acts. Each reads the task as a person would from the sentence the page shows; a
wrong reading here is a task the benchmark calls unsolved for the policy's sake, not the tools'.
"""

from __future__ import annotations

import math

import pytest
from PIL import Image, ImageDraw

from tests.servers.webgames_glyphs import read_code
from tests.servers.webgames_policy import (
    _colour_sequence,
    _downloaded_name,
    _tab_number,
    drawn_shape,
    field_and_pen,
    ingredient_grams,
    price_task,
    recipe_task,
    recommended_ticker,
)
from tests.servers.webgames_riddles import clue_number, note_numbers


@pytest.mark.parametrize(("text", "want"), [
    ("As the shop administrator, you need to update the price of the watermelon to **$6.85**.",
     ("watermelon", "6.85")),
    ("## Challenge Instructions The **Coffee Grinder** is currently priced at $**25.50**. A VIP customer is "
     "eligible for a 15% discount. You need to find the Coffee Grinder and update it.",
     ("Coffee Grinder", "21.68")),  # 21.675, rounded half up to the cent
    ("Update the price of the Apple (currently $1.25) to $1.00.", ("Apple", "1.00")),
    ("Browse the products and delete the one you like least.", None),
])
def test_price_task_reads_the_product_and_the_price_said_or_worked_out(text: str, want: object) -> None:
    assert price_task(text) == want


def test_recipe_task_reads_recipe_ingredient_and_servings() -> None:
    assert recipe_task("Find the Spaghetti Carbonara recipe in our recipe collection and calculate how many "
                       "grams of pancetta they'll need for 8 servings.") == ("Spaghetti Carbonara", "pancetta", 8)
    assert recipe_task('You are planning a gathering for **10 people** and have decided to make "Hearty Beef '
                       'Stew". Calculate exactly how many **grams** of **beef chuck** are needed for **10 '
                       'servings**.') == ("Hearty Beef Stew", "beef chuck", 10)
    assert recipe_task("Pick a recipe you like.") is None


@pytest.mark.parametrize(("text", "grams"), [
    ("Ingredients\n- 200 g pancetta\n- 400 g spaghetti", 200.0),
    ("- spaghetti: 400g\n- pancetta: 200g", 200.0),
    ("- 1.5 kg beef chuck", 1500.0),
    ("- 2 lb beef chuck", 907.18474),
    ("- 4 pieces egg yolks", None),
])
def test_ingredient_grams_converts_the_recipes_unit(text: str, grams: float | None) -> None:
    got = ingredient_grams(text, "pancetta" if "pancetta" in text else "beef chuck" if "beef" in text else "egg")
    assert got == pytest.approx(grams) if grams is not None else got is None


def test_recommended_ticker_is_the_last_one_the_report_names_as_its_pick() -> None:
    assert recommended_ticker("Apple (ticker: AAPL) leads... However, Google is better. Stock ticker: **GOOG**") \
        == "GOOG"
    assert recommended_ticker("AMZN dominates. We are talking about Alphabet here. Their ticker, if you are "
                              "looking for the prime investment for 2025, is `GOOG`. This is the one.") == "GOOG"
    assert recommended_ticker("The stock ticker is: MSFT") == "MSFT"
    assert recommended_ticker("Buy stocks now! Expert analysis on TSLA, META and more.") is None


def test_the_colour_sequence_and_the_tab_to_read() -> None:
    assert _colour_sequence("Required sequence: Red → Blue → Yellow → Green\n\nMake sure the receiver is open") \
        == ["Red", "Blue", "Yellow", "Green"]
    assert _colour_sequence("Send any colour you like.") == []
    listed = ("Tab 1: WebGames — http://127.0.0.1:5/tab-sync\nTab 2: WebGames — http://127.0.0.1:5/tab-sync/receiver\n"
              "Tab 3 (shown: read_page reads it): WebGames — http://127.0.0.1:5/tab-sync/sender")
    assert (_tab_number(listed, "receiver"), _tab_number(listed, "sender"), _tab_number(listed, "checkout")) \
        == (2, 3, None)


def test_a_riddle_notes_clues_become_numbers() -> None:
    note = """Dear reader,

1. The first number is what you get when you add the legs of an alpaca
   to the legs of a spider.

2. The second number is my age when I wrote this: I was born on 1st January 1960, and I wrote this
   on the opening day of the Sydney Olympics.

3. Multiply the number of planets in our solar system by the number of colors in a rainbow.

4. From the year humanity first set foot on the moon, subtract the year nineteen hundred.

5. How many keys are typically found on a full-sized piano?

Love,
Grampa"""
    assert note_numbers(note) == [12, 40, 56, 69, 88]
    assert clue_number("The first number is how many wheels are on a standard bicycle.") == 2
    assert clue_number("Seek the atomic number of the element Aurum (Au).") == 79
    assert clue_number("The number of moons of a planet nobody has named.") is None


def test_the_downloaded_files_name_is_taken_from_the_click() -> None:
    said = ("Clicked BUTTON \"Download Note\". The page did not visibly change. It started a download: "
            "grampa's old note.txt (the user is asked before it is kept; list_downloads shows where it stands).")
    assert _downloaded_name(said) == "grampa's old note.txt"
    assert _downloaded_name("Clicked BUTTON \"Go\". The page did not visibly change.") is None


def _drawn(corners: list[tuple[float, float]], turn: float) -> Image.Image:
    """A page with a black canvas (stretched wider than tall, as the challenge's is) and one shape."""
    picture = Image.new("RGB", (1280, 900), (240, 244, 248))
    draw = ImageDraw.Draw(picture)
    draw.rectangle([140, 100, 1140, 812], fill=(0, 0, 0))
    turned = [(x * math.cos(turn) - y * math.sin(turn), x * math.sin(turn) + y * math.cos(turn)) for x, y in corners]
    draw.polygon([(640 + x * 500, 456 - y * 356) for x, y in turned], fill=(30, 200, 90))
    return picture


def _star() -> list[tuple[float, float]]:
    points = []
    for i in range(10):
        radius, angle = (0.5 if i % 2 == 0 else 0.22), math.pi / 2 + i * math.pi / 5
        points.append((radius * math.cos(angle), radius * math.sin(angle)))
    return points


@pytest.mark.parametrize(("corners", "name"), [
    ([(0, 0.5), (-0.5, -0.5), (0.5, -0.5)], "triangle"),
    ([(-0.5, 0.5), (0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)], "square"),
    (_star(), "star"),
])
def test_drawn_shape_names_a_shape_at_any_turn(corners: list[tuple[float, float]], name: str) -> None:
    assert {drawn_shape(_drawn(corners, turn / 7)) for turn in range(0, 44, 9)} == {name}
    assert drawn_shape(Image.new("RGB", (400, 300), (240, 244, 248))) is None  # no canvas


def test_read_code_reads_a_drawn_code_and_not_the_pages_grey_text() -> None:
    from PIL import ImageFont
    picture = Image.new("RGB", (600, 300), (249, 250, 251))
    draw = ImageDraw.Draw(picture)
    heading = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 28)
    draw.text((40, 20), "Verification Challenge", fill=(17, 24, 39), font=heading)
    draw.rectangle([200, 120, 350, 180], fill=(243, 244, 246))
    assert read_code(picture, 4) is None  # nothing drawn in black yet
    serif = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf", 30)
    for n, ch in enumerate("K7WX"):
        draw.text((206 + 36 * n, 130), ch, fill=(0, 0, 0), font=serif)
    assert read_code(picture, 4) == "K7WX"
    assert read_code(picture) == "K7WX"  # the page not saying how many


def test_field_and_pen_finds_the_pen_and_the_animals_below_the_fields_edge() -> None:
    picture = Image.new("RGB", (800, 600), (220, 252, 231))
    draw = ImageDraw.Draw(picture)
    draw.text((300, 20), "Sheep in pen: 0 / 2", fill=(0, 0, 0))  # dark words above the field: not animals
    draw.rectangle([40, 80, 760, 580], outline=(22, 101, 52), width=4, fill=(187, 247, 208))
    draw.rectangle([100, 150, 250, 300], fill=(254, 249, 195))
    for x, y in ((600, 200), (500, 450)):
        draw.rectangle([x - 12, y - 18, x + 12, y + 18], outline=(0, 0, 0), width=2)
    seen = field_and_pen(picture)
    assert seen is not None
    pen, animals = seen
    assert pen == (100, 150, 251, 301)
    assert sorted(animals) == [(500, 450), (600, 200)]
