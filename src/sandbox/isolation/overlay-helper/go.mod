module lore/overlay-helper

go 1.21
