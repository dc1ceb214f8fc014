extends Node2D

@onready var ground: TileMapLayer = $Ground
@onready var decor: TileMapLayer = $Decor

const WALL := Vector2i(1, 0)


func paint_room(rect: Rect2i) -> void:
	for x in range(rect.position.x, rect.end.x):
		for y in range(rect.position.y, rect.end.y):
			ground.set_cell(Vector2i(x, y), 0, Vector2i.ZERO)


func wall_at(cell: Vector2i) -> bool:
	return ground.get_cell_atlas_coords(cell) == WALL


func cell_under_mouse() -> Vector2i:
	return ground.local_to_map(ground.get_local_mouse_position())


func world_of(cell: Vector2i) -> Vector2:
	return ground.to_global(ground.map_to_local(cell))


func clear_decor() -> void:
	decor.clear()


func used_bounds() -> Rect2i:
	return ground.get_used_rect()


func neighbours(cell: Vector2i) -> Array[Vector2i]:
	return ground.get_surrounding_cells(cell)


func custom_cost(cell: Vector2i) -> float:
	var data := ground.get_cell_tile_data(cell)
	if data == null:
		return INF
	return data.get_custom_data("cost")


func fill_terrain(cells: Array[Vector2i]) -> void:
	ground.set_cells_terrain_connect(cells, 0, 0)


func erase(cell: Vector2i) -> void:
	ground.erase_cell(cell)
