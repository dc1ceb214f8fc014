extends Node
## A function that awaits is a coroutine: its value is only there with `await`.


func load_level() -> int:
	await get_tree().process_frame
	return 1


func _ready() -> void:
	var level = load_level()  # expect: coroutine-needs-await
	var other = await load_level()
	load_level()


func _conditions() -> void:
	if(load_level()):  # expect: coroutine-needs-await
		pass
	if await load_level():
		pass
