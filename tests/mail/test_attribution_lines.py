"""A reply's quote begins under an attribution line ("On ... wrote:") in the reader's
language, sometimes wrapped, sometimes right under the move: it ends the reply, and is
never read as a move."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from pbem.mail.inbound.message import first_paragraph, own_text, reply_lines

ATTRIBUTIONS = {
    "gmail english": "On Wed, 2 Dec 2026 at 10:15, pbem <games@pbem.test> wrote:",
    "apple english": "On 2 Dec 2026, at 10:15, pbem <games@pbem.test> wrote:",
    "gmail android russian": "ср, 2 дек. 2026 г., 10:15 пользователь pbem <games@pbem.test> написал:",
    "russian feminine": "2 декабря 2026 г., в 10:15, pbem написал(а):",
    "yandex russian": '02.12.2026, 10:15, "pbem" <games@pbem.test>:',
    "german": "Am Mi., 2. Dez. 2026 um 10:15 Uhr schrieb pbem <games@pbem.test>:",
    "french": "Le mer. 2 déc. 2026 à 10:15, pbem <games@pbem.test> a écrit :",
    "spanish": "El mié, 2 dic 2026 a las 10:15, pbem (<games@pbem.test>) escribió:",
    "italian": "Il giorno mer 2 dic 2026 alle ore 10:15 pbem <games@pbem.test> ha scritto:",
    "portuguese": "Em qua., 2 de dez. de 2026 às 10:15, pbem <games@pbem.test> escreveu:",
    "dutch": "Op wo 2 dec 2026 om 10:15 schreef pbem <games@pbem.test>:",
    "polish": "W dniu śr., 2.12.2026 o 10:15 pbem napisał:",
    "japanese gmail": "2026年12月2日(水) 10:15 pbem <games@pbem.test>:",
    "japanese outlook": "2026/12/02 10:15、pbemのメッセージ:",
    "chinese": "pbem <games@pbem.test> 于2026年12月2日周三 10:15写道：",
}
QUOTE = "> Hello Anna,\n>\n> It is your turn now.\n>     2  Start in Stockholm\n"


@pytest.mark.parametrize("attribution", ATTRIBUTIONS.values(), ids=list(ATTRIBUTIONS))
@pytest.mark.parametrize("gap", ["\n\n", "\n"], ids=["after a blank line", "right under"])
def test_an_attribution_line_ends_the_reply(attribution, gap):
    text = f"2{gap}{attribution}\n\n{QUOTE}"
    assert first_paragraph(text) == ["2"]
    assert reply_lines(mail(text)) == ["2"]
    assert own_text(mail(text)) == "2"


@pytest.mark.parametrize(
    "wrapped",
    [
        "ср, 2 дек. 2026 г., 10:15 пользователь pbem <\ngames@pbem.test> написал:",
        "On Wed, 2 Dec 2026 at 10:15, pbem <\ngames@pbem.test> wrote:",
        "Am Mi., 2. Dez. 2026 um 10:15 Uhr schrieb pbem\n<games@pbem.test>:",
        "Le mer. 2 déc. 2026 à 10:15, pbem <games@pbem.test> a\nécrit :",
    ],
)
def test_a_wrapped_attribution_right_under_the_move_ends_the_reply(wrapped):
    text = f"2\n{wrapped}\n\n{QUOTE}"
    assert reply_lines(mail(text)) == ["2"]
    assert own_text(mail(text)) == "2"


@pytest.mark.parametrize(
    "moves",
    [
        ["1", "3"],
        ["Start in Stockholm", "Start in Riga"],
        ['{"type": "start", "port": "riga"}'],
        ["On second thought: 3"],
        ["sail 2025 to 2026"],
    ],
)
def test_moves_on_several_lines_stay_moves(moves):
    text = (
        "\n".join(moves)
        + "\n\nOn Wed, 2 Dec 2026 at 10:15, pbem <games@pbem.test> wrote:\n\n"
        + QUOTE
    )
    assert reply_lines(mail(text)) == moves


def mail(text: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "anna@example.org"
    message.set_content(text)
    return message
